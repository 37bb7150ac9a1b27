"""Suite-wide set-up."""

import os

# Playwright's sync API runs an event loop in the test thread; Django's ORM must still be usable.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


import pytest
from hypothesis import settings as hypothesis_settings

# Property tests draw the same examples on every run (a failure is reproduced by running again),
# and a loaded machine's slow example is not a failure: speed is the benchmarks' business.
hypothesis_settings.register_profile("pdc", derandomize=True, deadline=None)
hypothesis_settings.load_profile("pdc")


@pytest.fixture(autouse=True)
def token_uses_written_at_once(settings, monkeypatch):
    """Each API token's use written when noted, as before it was batched, in a process state of
    its own (``tests/site/test_token_last_use.py`` tests the batching)."""
    from players import auth

    settings.TOKEN_USES_WRITE_SECONDS = 0
    monkeypatch.setattr(auth, "_uses", auth._Uses())


@pytest.fixture(autouse=True)
def isolated_cache(settings):
    """Each test sees a cache of its own (rate-limit counters, presence): a fresh key prefix, not
    a flush, because on Redis a flush would also wipe what other test processes keep there."""
    import uuid

    settings.CACHES = {
        name: {**config, "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
        for name, config in settings.CACHES.items()
    }


@pytest.fixture(autouse=True)
def no_drawings_of_earlier_tests():
    """What a process drew for a profile (``ratings.charts.DRAWN``) is kept under the database's
    ids, and a rolled-back test hands the same ids to the next one with other matches."""
    from ratings.charts import DRAWN

    DRAWN.clear()


@pytest.fixture(autouse=True)
def isolated_channel_layer(settings):
    """Each test rings and listens on groups of its own: on a shared Redis, table ids repeat
    across test processes (each has its own database), and a doorbell or group member left by
    one must not reach another."""
    import copy
    import uuid

    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    for layer in layers.values():
        if "CONFIG" in layer:
            layer["CONFIG"]["prefix"] = f"test-{uuid.uuid4().hex}"
    settings.CHANNEL_LAYERS = layers


@pytest.fixture(autouse=True)
def shared_threads_connection_given_back():
    """An async test that sets up rows through ``sync_to_async`` (thread-sensitive, outside any
    request) runs them in asgiref's one shared thread, which nothing closes after: that thread
    kept its pooled PostgreSQL connection to the end of the run, and the test database could not
    be dropped (``filterwarnings`` in ``pyproject.toml`` makes that an error). The site itself
    gives connections back after each request and each ``database_sync_to_async`` call."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.fixture(autouse=True)
def no_viewers_of_earlier_tests():
    """Who watches a table, as a process keeps it between moves (``games.published``), is kept
    under the table's id, and every test's database hands out the same ids again."""
    from games import published

    published._viewers.clear()
    published._listened.clear()


@pytest.fixture(autouse=True)
def english_unless_asked():
    """A request in another language leaves that language active in the thread: each test starts
    in the default language, as a new request would."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Tests create many users: the production hasher would cost a third of a second each."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def reproducible_seeds(request, monkeypatch):
    """Every match a test creates gets a seed fixed by the test's name and the match's order, so
    its deals, dice and seating are the same on every run and a failure can be reproduced. (The
    site draws a secret random seed; ``Match.seed`` has it as its field default.)"""
    import hashlib
    import itertools

    from games.models import Match

    numbers = itertools.count()

    def seed() -> str:
        text = f"{request.node.nodeid}:{next(numbers)}"
        return hashlib.sha256(text.encode()).hexdigest()

    # Django keeps the field's default callable in ``_get_default``.
    monkeypatch.setattr(Match._meta.get_field("seed"), "_get_default", seed)


@pytest.fixture(autouse=True)
def level3_bots_think_a_fixed_number_of_worlds():
    """A level-3 bot thinks for a time on the site; in tests it thinks a few re-dealt worlds, so
    a seed gives the same move whatever the machine's load (issue 13)."""
    from games.engines import search

    with search.budget(iterations=16):
        yield


@pytest.fixture(autouse=True)
def no_analysis_after_the_game(settings):
    """The worker's analysis of finished matches is off in tests (a test of workers racing the
    clock must not share their rounds with it); its own tests turn it on, with a couple of worlds
    a decision so that it is reproducible."""
    settings.ANALYSIS_SECONDS_PER_MATCH = 0
    settings.ANALYSIS_ITERATIONS = 2
    settings.ANALYSIS_SECONDS_PER_TICK = 0.2


@pytest.fixture
def site(tmp_path):
    """The real site in processes of its own (daphne, the worker) on a database of its own."""
    from tests.live_server import LiveSite

    live = LiveSite(tmp_path)
    try:
        yield live
    finally:
        live.close()


@pytest.fixture
def site_app():
    """The site's HTTP application (as in pdc_site.asgi), its threads closed afterwards with their
    database connections."""
    from pdc_site.request_threads import OneHopHandler, RequestThreads
    from tests.site_app import closed_after

    app = RequestThreads(OneHopHandler())
    yield app
    closed_after(app)
