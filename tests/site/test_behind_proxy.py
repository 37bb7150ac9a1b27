"""The site served as the README deploys it: two daphne processes behind nginx configured by
``deploy/nginx.conf``, over TLS, with ``DJANGO_SECURE``, ``DJANGO_TRUSTED_PROXIES`` and the
shared Redis. Every path a person or a script takes goes through the proxy: pages, a form with
its CSRF check, the API, the table's sockets (upgraded by nginx, Origin checked by the site), and
the caller's address the rate limits count."""

from __future__ import annotations

import http.client
import re
import ssl
import time
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from tests.live_server import LiveSite, call_api
from tests.proxy_server import nginx_in_front, require_nginx
from tests.services_required import require_redis
from tests.site.test_two_servers import login_session, versions_in

pytestmark = pytest.mark.redis


@dataclass
class Proxy:
    site: LiveSite
    base: str
    certificate: Path

    @property
    def port(self) -> int:
        return urlsplit(self.base).port or 443

    @property
    def context(self) -> ssl.SSLContext:
        """TLS that trusts the proxy's own certificate."""
        return ssl.create_default_context(cafile=str(self.certificate))

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        source: str = "127.0.0.1",
    ) -> tuple[int, dict[str, str], bytes, list[str]]:
        """One HTTPS request to the proxy from the address ``source``: status, headers, body and
        the cookies set."""
        connection = http.client.HTTPSConnection(
            "127.0.0.1", self.port, context=self.context, timeout=10, source_address=(source, 0)
        )
        try:
            connection.request(method, path, body=body, headers=headers or {})
            answer = connection.getresponse()
            cookies = answer.headers.get_all("Set-Cookie") or []
            return answer.status, dict(answer.headers), answer.read(), cookies
        finally:
            connection.close()

    def api(self, path: str, token: str, body: dict | None = None) -> dict:
        status, answer = call_api(self.base, path, token, body, context=self.context)
        assert status in (200, 201), answer
        return answer


@pytest.fixture
def proxy(tmp_path):
    redis_url = require_redis()
    require_nginx()
    (tmp_path / "site").mkdir()
    site = LiveSite(
        tmp_path / "site",
        {
            "REDIS_URL": redis_url,
            "DJANGO_SECURE": "1",
            "DJANGO_TRUSTED_PROXIES": "127.0.0.1",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        },
    )
    try:
        daphnes = [site.start_web(), site.start_web()]
        upstreams = [base.removeprefix("http://") for base in daphnes]
        with nginx_in_front(tmp_path / "nginx", upstreams, tls=True) as (base, _nginx, cert):
            assert cert is not None
            yield Proxy(site, base, cert)
    finally:
        site.close()


def test_pages_come_through_the_proxy_over_https_with_hsts(proxy: Proxy) -> None:
    status, headers, body, _ = proxy.request("GET", "/")
    assert status == 200, body[:500]
    assert "max-age=31536000" in headers["Strict-Transport-Security"]


def test_a_form_posted_through_the_proxy_passes_the_csrf_check(proxy: Proxy) -> None:
    proxy.site.manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; "
        "get_user_model().objects.create_user('cleo', password='a long pass phrase')",
    )
    status, _headers, page, cookies = proxy.request("GET", "/accounts/login/")
    assert status == 200
    jar = SimpleCookie()
    for cookie in cookies:
        jar.load(cookie)
    csrf = jar["csrftoken"].value
    assert "Secure" in " ".join(c for c in cookies if c.startswith("csrftoken="))
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
    form = urlencode(
        {"csrfmiddlewaretoken": token, "username": "cleo", "password": "a long pass phrase"}
    ).encode()
    status, headers, body, cookies = proxy.request(
        "POST",
        "/accounts/login/",
        form,
        {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf}",
            "Origin": proxy.base,
            "Referer": proxy.base + "/accounts/login/",
        },
    )
    assert status == 302, body[:800]
    assert not headers["Location"].startswith("http:")
    session = [cookie for cookie in cookies if cookie.startswith("sessionid=")]
    assert session and "Secure" in session[0]


def test_a_move_through_the_proxy_reaches_every_seats_sockets(proxy: Proxy) -> None:
    from websockets.sync.client import connect

    site = proxy.site
    tokens = {name: site.manage("issue_token", name, "--create").strip() for name in ("ann", "bob")}
    sessions = {name: f"sessionid={login_session(site, name)}" for name in tokens}
    table = proxy.api("/api/tables", tokens["ann"], {"game": "part-du-chef", "seats": 2})
    table = proxy.api(f"/api/tables/{table['id']}/join", tokens["bob"], {})
    url = proxy.base.replace("https://", "wss://") + f"/ws/tables/{table['id']}/"
    # Two sockets per seat: nginx spreads them over both daphnes (least_conn).
    sockets = [
        connect(
            url,
            origin=proxy.base,
            ssl=proxy.context,
            open_timeout=10,
            additional_headers={"Cookie": sessions[name]},
        )
        for name in tokens
        for _ in range(2)
    ]
    try:
        for socket in sockets:
            assert table["version"] in versions_in(socket.recv(timeout=10))
        mover = table["seats"][table["to_move"][0]]["player"]
        played = proxy.api(
            f"/api/tables/{table['id']}/moves",
            tokens[mover],
            {"version": table["version"], "move": {"cut": [0, 6]}},
        )
        for socket in sockets:
            deadline, seen = time.monotonic() + 10, set()
            while played["version"] not in seen and time.monotonic() < deadline:
                seen |= versions_in(socket.recv(timeout=10))
            assert played["version"] in seen, site.log_text()[-3000:]
    finally:
        for socket in sockets:
            socket.close()


def test_a_socket_from_another_sites_page_is_refused_through_the_proxy(proxy: Proxy) -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    token = proxy.site.manage("issue_token", "dan", "--create").strip()
    table = proxy.api("/api/tables", token, {"game": "part-du-chef", "seats": 2})
    url = proxy.base.replace("https://", "wss://") + f"/ws/tables/{table['id']}/"
    with pytest.raises(InvalidStatus) as refused:
        connect(url, origin="https://elsewhere.example", ssl=proxy.context, open_timeout=10)
    assert refused.value.response.status_code == 403


def test_behind_the_proxy_the_caller_is_the_address_nginx_saw(proxy: Proxy) -> None:
    """Unknown tokens are limited per caller (20 per 10 minutes): counted against the address
    nginx saw, whatever X-Forwarded-For the caller wrote itself."""

    def unknown_token_from(source: str, forged: str) -> int:
        headers = {"Authorization": "Bearer not-a-token", "X-Forwarded-For": forged}
        return proxy.request("GET", "/api/tables/1", None, headers, source)[0]

    statuses = [unknown_token_from("127.0.0.2", f"198.51.100.{i}") for i in range(20)]
    assert statuses == [401] * 20
    assert unknown_token_from("127.0.0.2", "198.51.100.99") == 429
    assert unknown_token_from("127.0.0.3", "127.0.0.2") == 401
