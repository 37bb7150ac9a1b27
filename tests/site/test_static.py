"""Static files (issue 10): after ``collectstatic`` the site serves them under hashed names,
compressed when the browser accepts it and cacheable for years; before it, under their plain
names with a short lifetime, so that development and tests need no step first."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request

from tests.live_server import ROOT, LiveSite

TEN_YEARS = "max-age=315360000"


def get(url: str, **headers: str) -> tuple[dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return {k.lower(): v for k, v in response.headers.items()}, response.read()


def htmx_url(base: str) -> str:
    _headers, page = get(base + "/")
    return re.search(r'<script src="(/static/[^"]*htmx[^"]*\.js)"', page.decode())[1]


def test_collected_static_files_are_hashed_compressed_and_cached_for_years(tmp_path):
    root = tmp_path / "static"
    site = LiveSite(tmp_path, {"DJANGO_STATIC_ROOT": str(root)})
    try:
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput"],
            cwd=ROOT,
            env=site.env,
            check=True,
            capture_output=True,
        )
        base = site.start_web()
        url = htmx_url(base)
        assert re.search(r"\.[0-9a-f]{12}\.js$", url), url
        plain, whole = get(base + url)
        squeezed, _body = get(base + url, **{"Accept-Encoding": "gzip"})
        assert squeezed["content-encoding"] == "gzip"
        assert int(squeezed["content-length"]) < len(whole) / 2
        assert TEN_YEARS in squeezed["cache-control"] and "immutable" in squeezed["cache-control"]
        assert "content-encoding" not in plain
    finally:
        site.close()


def test_before_collectstatic_the_files_are_served_under_their_plain_names(tmp_path):
    site = LiveSite(tmp_path, {"DJANGO_STATIC_ROOT": str(tmp_path / "nothing-collected")})
    try:
        base = site.start_web()
        url = htmx_url(base)
        assert not re.search(r"\.[0-9a-f]{12}\.js$", url), url
        headers, body = get(base + url)
        assert body and TEN_YEARS not in headers.get("cache-control", "")
    finally:
        site.close()
