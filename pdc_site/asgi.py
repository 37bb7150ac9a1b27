"""The ASGI entry point: HTTP through Django, WebSockets through Channels."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")

import django

django.setup(set_prefix=False)

from django.conf import settings  # noqa: E402

from pdc_site import daphne_requests  # noqa: E402
from pdc_site.request_threads import (  # noqa: E402
    SPARE,
    OneHopHandler,
    RequestThreads,
    hand_over_sooner,
)
from pdc_site.static import StaticFiles  # noqa: E402

request_threads = RequestThreads(
    OneHopHandler(), spare=SPARE, at_once=settings.REQUEST_THREADS_AT_ONCE
)
django_asgi_app = request_threads
if settings.SERVE_STATIC:
    django_asgi_app = StaticFiles(django_asgi_app)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from pdc_site import collector  # noqa: E402
from pdc_site.gate import SocketGate  # noqa: E402
from pdc_site.loop_watch import watching  # noqa: E402
from pdc_site.origin import SameOriginValidator  # noqa: E402
from pdc_site.routing import websocket_urlpatterns  # noqa: E402

application = watching(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            # The origin first, then the gate: the session cookie is read only once both agree.
            "websocket": SameOriginValidator(
                SocketGate(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
            ),
        }
    )
)

# Collections run while no request is in flight and the loop is idle (``collector.when_idle``).
collector.settle(busy=request_threads.busy)
application = collector.when_idle(application)
hand_over_sooner()
daphne_requests.install()
