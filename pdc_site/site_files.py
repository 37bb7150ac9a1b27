"""The files every site is asked for at its root: the icon and robots.txt."""

from __future__ import annotations

from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

FAVICON = Path(__file__).resolve().parents[1] / "static" / "favicon.svg"


@require_GET
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page links: answer the site's SVG icon."""
    return HttpResponse(FAVICON.read_bytes(), content_type="image/svg+xml")


@require_GET
@cache_control(max_age=86400, public=True)
def robots(request: HttpRequest) -> HttpResponse:
    """Crawlers may read the public pages; the API, accounts and admin are not for them."""
    lines = [
        "User-agent: *",
        f"Disallow: {reverse('admin:index')}",
        "Disallow: /api/",
        f"Disallow: {reverse('players:account')}",
        "",
    ]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")
