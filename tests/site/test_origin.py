"""Which pages may open the site's sockets (pdc_site/origin.py): the site's own origin — scheme,
host and port — or a trusted one."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from .factories import started_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def admitted(origin: str | None, host: str, scheme: str = "ws", **headers: str) -> bool:
    from pdc_site.asgi import application

    match, _ = await sync_to_async(started_table)(players=2)
    sent = [(b"host", host.encode())]
    if origin is not None:
        sent.append((b"origin", origin.encode()))
    sent += [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()]
    socket = WebsocketCommunicator(application, f"/ws/tables/{match.pk}/", headers=sent)
    socket.scope["scheme"] = scheme
    ok, _code = await socket.connect()
    if ok:
        await socket.disconnect()
    return ok


async def test_a_page_of_the_sites_own_origin_is_admitted():
    assert await admitted("http://127.0.0.1:8000", "127.0.0.1:8000")
    assert await admitted("http://localhost", "localhost")
    assert await admitted("http://localhost:80", "localhost")
    assert await admitted("http://[::1]:8000", "[::1]:8000")


async def test_another_port_is_another_origin():
    assert not await admitted("http://127.0.0.1:1", "127.0.0.1:8000")
    assert not await admitted("http://127.0.0.1:1", "127.0.0.1")


async def test_https_pages_do_not_open_plain_sockets_nor_the_reverse():
    assert not await admitted("https://127.0.0.1", "127.0.0.1")
    assert not await admitted("http://127.0.0.1", "127.0.0.1", scheme="wss")
    assert await admitted("https://127.0.0.1", "127.0.0.1", scheme="wss")


async def test_another_host_or_a_host_the_site_does_not_serve_is_refused():
    assert not await admitted("http://evil.example", "127.0.0.1")
    assert not await admitted("http://evil.example", "evil.example")


async def test_a_socket_without_an_origin_or_with_a_null_one_is_refused():
    assert not await admitted(None, "127.0.0.1")
    assert not await admitted("null", "127.0.0.1")


async def test_a_trusted_origin_is_admitted_for_a_proxy_that_renames_the_site(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://pizza.example", "https://*.games.example"]
    assert await admitted("https://pizza.example", "127.0.0.1:8000")
    assert await admitted("https://eu.games.example", "127.0.0.1:8000")
    assert not await admitted("http://pizza.example", "127.0.0.1:8000")
    assert not await admitted("https://pizza.example:8443", "127.0.0.1:8000")


async def test_a_tls_proxy_says_https_through_the_secure_proxy_header(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert await admitted("https://localhost", "localhost", x_forwarded_proto="https")
    assert not await admitted("https://localhost", "localhost")
    settings.SECURE_PROXY_SSL_HEADER = None
    assert not await admitted("https://localhost", "localhost", x_forwarded_proto="https")
