"""A real site for browser tests (daphne and the worker in processes of their own, see
tests/live_server.py) and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live_server import LiveSite

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def live_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a running site (web server and worker)."""
    site = LiveSite(tmp_path_factory.mktemp("site"))
    try:
        url = site.start_web()
        site.start_worker()
        yield url
    finally:
        site.close()


# One browser per module, not per session: while Playwright's sync API is open, asyncio counts
# its loop as running in this thread, and an async test that a worker runs after an e2e module
# (pytest-xdist mixes them) could not start its own loop.
@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: CI must install Debian's chromium")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
