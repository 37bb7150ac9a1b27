"""The load generator's own HTTP/1.1 and WebSocket client, on asyncio Protocols.

``bench/live.py`` runs beside the site on the same cores, so every millisecond it spends per move
is taken from the daphnes it measures. aiohttp cost it about 1 ms per move (its request and
response objects, its per-frame reader task and message objects, a UTF-8 decode of every frame);
this client does only what the bench needs:

- HTTP/1.1 with keep-alive connections, a pool per host (no limit, as aiohttp's ``limit=0``);
  answers with ``Content-Length``, chunked, or ending with the connection, all read; a connection
  the server closes mid-answer is an error, never a short body. JSON in and out.
- WebSocket (RFC 6455): the handshake (its ``Sec-WebSocket-Accept`` checked), masked client
  frames, unmasked server frames with 7-, 16- and 64-bit lengths, fragmented messages
  (continuation frames, control frames between them), frames split over reads or several in one,
  ping answered with pong, the close handshake. A text message is handed over as bytes (no
  decode: the bench looks for ASCII marks in it) as soon as it is complete, from
  ``data_received``: no task and no await per frame.

``AiohttpClient`` gives the same interface over aiohttp, for a like-for-like comparison
(``bench/live.py --client aiohttp``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import struct
from collections.abc import AsyncIterator, Callable
from typing import Any

#: RFC 6455's GUID, from which the server's ``Sec-WebSocket-Accept`` is derived.
WEBSOCKET_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0
#: How long ``close`` waits for the server's answering close frame.
CLOSE_TIMEOUT = 10.0


class WireError(Exception):
    """The server broke HTTP or WebSocket framing, or closed the connection mid-answer."""


class HandshakeError(WireError):
    """The server did not switch to WebSocket (``status`` is what it answered)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# --- HTTP answers -------------------------------------------------------------------------------
class AnswerReader:
    """One HTTP/1.1 answer, read from bytes in pieces of any size (``feed``; ``eof`` when the
    connection closes). Once ``done``, ``status``, ``headers`` (names lower-cased) and ``body``
    hold it and ``rest`` the bytes that followed it (a WebSocket's first frames). ``head_only``:
    the answer to a WebSocket handshake, whose body is the frames."""

    def __init__(self, head_only: bool = False) -> None:
        self.head_only = head_only
        self.buffer = bytearray()
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body = bytearray()
        self.done = False
        #: How the body ends: "length", "chunked" or "close" (read until the connection closes).
        self.framing = ""
        self.remaining = 0
        #: Chunked bodies: "size" (a size line), "data" (a chunk), "crlf" (after it), "trailer".
        self.chunk_state = "size"
        self.keep_alive = True

    @property
    def rest(self) -> bytes:
        return bytes(self.buffer)

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while not self.done:
            if not self.status:
                if not self._read_head():
                    return
            elif self.framing == "length":
                if not self._read_length():
                    return
            elif self.framing == "chunked":
                if not self._read_chunk():
                    return
            else:  # until the connection closes
                self.body += self.buffer
                self.buffer.clear()
                return

    def eof(self) -> None:
        """The connection closed: the end of a body read until then, else an error."""
        if self.done:
            return
        if self.status and self.framing == "close":
            self.done = True
            self.keep_alive = False
            return
        raise WireError("the connection closed in the middle of an answer")

    def _read_head(self) -> bool:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        lines = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        del self.buffer[: end + 4]
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise WireError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if not colon:
                raise WireError(f"not a header line: {line[:80]!r}")
            name = name.strip().lower()
            value = value.strip()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        if 100 <= status < 200 and status != 101:  # an interim answer: the real one follows
            return True
        self.status, self.headers = status, headers
        connection = headers.get("connection", "").lower()
        self.keep_alive = "close" not in connection and parts[0] != "HTTP/1.0"
        if self.head_only or status in (101, 204, 304):
            self.done = True
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            self.framing = "chunked"
        elif "content-length" in headers:
            self.framing = "length"
            self.remaining = int(headers["content-length"])
            self.done = self.remaining == 0
        else:
            self.framing = "close"
            self.keep_alive = False
        return True

    def _read_length(self) -> bool:
        take = min(self.remaining, len(self.buffer))
        if take == len(self.buffer) and not self.body:  # the usual case: the body in one piece
            self.body = self.buffer
            self.buffer = bytearray()
        else:
            self.body += self.buffer[:take]
            del self.buffer[:take]
        self.remaining -= take
        self.done = self.remaining == 0
        return self.done

    def _read_chunk(self) -> bool:
        if self.chunk_state in ("size", "trailer"):
            end = self.buffer.find(b"\r\n")
            if end < 0:
                return False
            line = bytes(self.buffer[:end])
            del self.buffer[: end + 2]
            if self.chunk_state == "trailer":
                self.done = not line  # trailer lines end with an empty one
                return True
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise WireError(f"not a chunk size: {line[:40]!r}") from None
            self.remaining = size
            self.chunk_state = "data" if size else "trailer"
            return True
        if self.chunk_state == "data":
            take = min(self.remaining, len(self.buffer))
            self.body += self.buffer[:take]
            del self.buffer[:take]
            self.remaining -= take
            if self.remaining:
                return False
            self.chunk_state = "crlf"
        if len(self.buffer) < 2:
            return False
        if self.buffer[:2] != b"\r\n":
            raise WireError("a chunk does not end with CRLF")
        del self.buffer[:2]
        self.chunk_state = "size"
        return True


class HttpConnection(asyncio.Protocol):
    """One keep-alive connection, one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.reader: AnswerReader | None = None
        self.waiter: asyncio.Future | None = None
        self.lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        if reader is None:  # bytes nobody asked for: the connection cannot be trusted again
            self.transport.close()
            return
        try:
            reader.feed(data)
        except WireError as error:
            self._finish(error)
            return
        if reader.done:
            self._finish(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self.reader is not None:
            try:
                self.reader.eof()
            except WireError as error:
                self._finish(error)
                return
            self._finish(None)

    def _finish(self, error: Exception | None) -> None:
        reader, waiter = self.reader, self.waiter
        self.reader = self.waiter = None
        if error is not None or reader.buffer or not reader.keep_alive:
            self.lost = True  # not reused: an error, bytes past the answer, or "close"
            self.transport.close()
        if waiter is not None and not waiter.done():
            if error is not None:
                waiter.set_exception(error)
            else:
                waiter.set_result(reader)

    async def request(self, data: bytes) -> AnswerReader:
        self.reader = AnswerReader()
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(data)
        return await self.waiter


class HttpPool:
    """Keep-alive connections to one host and port; a new one whenever all are busy."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.idle: list[HttpConnection] = []
        self.opened = 0

    async def request(self, data: bytes) -> AnswerReader:
        connection = None
        while self.idle:
            candidate = self.idle.pop()
            if not candidate.lost:
                connection = candidate
                break
        if connection is None:
            loop = asyncio.get_running_loop()
            _transport, connection = await loop.create_connection(
                HttpConnection, self.host, self.port
            )
            self.opened += 1
        answered = False
        try:
            answer = await connection.request(data)
            answered = True
            return answer
        finally:
            # A request cancelled or failed half-way leaves its connection out of the pool.
            if answered and not connection.lost:
                self.idle.append(connection)
            elif not connection.lost:
                connection.lost = True
                connection.transport.close()

    def close(self) -> None:
        for connection in self.idle:
            connection.transport.close()
        self.idle.clear()


def split_url(url: str) -> tuple[str, int, str]:
    """``http://host:port/path`` (or ``ws://``) → host, port, path."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("http", "ws"):
        raise ValueError(f"only http:// and ws:// URLs: {url!r}")
    netloc, slash, path = rest.partition("/")
    host, colon, port = netloc.rpartition(":")
    if not colon:
        host, port = netloc, "80"
    return host, int(port), slash + path or "/"


def request_bytes(
    method: str, host: str, port: int, path: str, headers: dict[str, str], body: bytes | None
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head + body if body else head


# --- WebSocket frames ---------------------------------------------------------------------------
def mask_payload(payload: bytes, mask: bytes) -> bytes:
    """``payload`` XOR-ed with the repeated 4-byte ``mask`` (a client frame's masking)."""
    n = len(payload)
    if not n:
        return b""
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")


def client_frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """A masked frame, as a client must send."""
    n = len(payload)
    first = (0x80 if fin else 0) | opcode
    if n < 126:
        head = struct.pack("!BB", first, 0x80 | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", first, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, n)
    mask = os.urandom(4)
    return head + mask + mask_payload(payload, mask)


class FrameReader:
    """Server frames, read from bytes in pieces of any size: ``on_message(opcode, payload)`` for
    each whole text or binary message (its fragments joined), ``on_control(opcode, payload)``
    for ping, pong and close."""

    def __init__(
        self,
        on_message: Callable[[int, bytes], None],
        on_control: Callable[[int, bytes], None],
    ) -> None:
        self.on_message = on_message
        self.on_control = on_control
        self.buffer = b""
        self.fragments: list[bytes] | None = None
        self.fragmented_opcode = 0

    def feed(self, data: bytes) -> None:
        if self.buffer:
            data = self.buffer + data
        size = len(data)
        pos = 0
        while size - pos >= 2:
            first, second = data[pos], data[pos + 1]
            if second & 0x80:
                raise WireError("a server frame must not be masked")
            if first & 0x70:
                raise WireError("reserved bits set without an extension")
            length = second & 0x7F
            head = 2
            if length == 126:
                if size - pos < 4:
                    break
                (length,) = struct.unpack_from("!H", data, pos + 2)
                head = 4
            elif length == 127:
                if size - pos < 10:
                    break
                (length,) = struct.unpack_from("!Q", data, pos + 2)
                head = 10
            end = pos + head + length
            if end > size:
                break
            payload = data[pos + head : end]
            pos = end
            self._frame(first & 0x80, first & 0x0F, payload)
        self.buffer = data[pos:] if pos < size else b""

    def _frame(self, fin: int, opcode: int, payload: bytes) -> None:
        if opcode >= 0x8:
            if not fin or len(payload) > 125:
                raise WireError("a control frame must be whole and at most 125 bytes")
            self.on_control(opcode, payload)
        elif opcode == CONTINUATION:
            if self.fragments is None:
                raise WireError("a continuation frame without a message to continue")
            self.fragments.append(payload)
            if fin:
                message, self.fragments = b"".join(self.fragments), None
                self.on_message(self.fragmented_opcode, message)
        elif opcode in (TEXT, BINARY):
            if self.fragments is not None:
                raise WireError("a new message before the last one ended")
            if fin:
                self.on_message(opcode, payload)
            else:
                self.fragments, self.fragmented_opcode = [payload], opcode
        else:
            raise WireError(f"unknown opcode {opcode}")


class WebSocket(asyncio.Protocol):
    """A client WebSocket: ``on_text`` gets every text message's bytes as it completes."""

    def __init__(self, key: bytes, on_text: Callable[[bytes], None]) -> None:
        self.key = key
        self.on_text = on_text
        self.transport: asyncio.Transport | None = None
        self.handshake: AnswerReader | None = AnswerReader(head_only=True)
        self.opened = asyncio.get_running_loop().create_future()
        self.ended = asyncio.get_running_loop().create_future()
        self.frames = FrameReader(self._message, self._control)
        self.closed = False
        self.close_sent = False
        #: The close code the server sent (None until it did, or without a code).
        self.close_code: int | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            if self.handshake is not None:
                data = self._read_handshake(data)
                if not data:
                    return
            self.frames.feed(data)
        except WireError as error:
            self._fail(error)

    def _read_handshake(self, data: bytes) -> bytes:
        handshake = self.handshake
        handshake.feed(data)
        if not handshake.done:
            return b""
        self.handshake = None
        if handshake.status != 101:
            raise HandshakeError(handshake.status, f"the server answered {handshake.status}")
        accept = base64.b64encode(hashlib.sha1(self.key + WEBSOCKET_GUID).digest()).decode()
        if handshake.headers.get("sec-websocket-accept") != accept:
            raise HandshakeError(101, "a wrong Sec-WebSocket-Accept")
        self.opened.set_result(None)
        return handshake.rest

    def _message(self, opcode: int, payload: bytes) -> None:
        if opcode == TEXT:
            self.on_text(payload)

    def _control(self, opcode: int, payload: bytes) -> None:
        if opcode == PING:
            self.transport.write(client_frame(PONG, payload))
        elif opcode == CLOSE:
            if len(payload) >= 2:
                (self.close_code,) = struct.unpack_from("!H", payload)
            if not self.close_sent:  # the server closes: answer with its code, then hang up
                self.close_sent = True
                self.transport.write(client_frame(CLOSE, payload[:2]))
            self.closed = True
            self.transport.close()

    def _fail(self, error: Exception) -> None:
        if not self.opened.done():
            self.opened.set_exception(error)
        self.closed = True
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            got = len(self.handshake.buffer) if self.handshake is not None else 0
            self.opened.set_exception(
                WireError(f"the connection closed during the handshake ({got} bytes of answer)")
            )
        if not self.ended.done():
            self.ended.set_result(None)

    def send_text(self, text: str | bytes) -> None:
        data = text.encode() if isinstance(text, str) else text
        self.transport.write(client_frame(TEXT, data))

    async def close(self, code: int = 1000) -> None:
        """The close handshake: our close frame, then the server's, then the connection ends."""
        if not self.closed and not self.close_sent:
            self.close_sent = True
            self.transport.write(client_frame(CLOSE, struct.pack("!H", code)))
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.ended), CLOSE_TIMEOUT)
        self.transport.close()


# --- the clients --------------------------------------------------------------------------------
def decode_json(body: bytes) -> Any:
    """An answer's JSON, or {} when it is not JSON (an error page)."""
    try:
        return json.loads(body)
    except ValueError:
        return {}


class WireClient:
    """The bench's client: ``call`` for a JSON request, ``websocket`` for a socket."""

    name = "wire"

    def __init__(self) -> None:
        self.pools: dict[tuple[str, int], HttpPool] = {}

    async def call(
        self, method: str, url: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """A request (``body`` sent as JSON when given); its status and JSON answer."""
        host, port, path = split_url(url)
        pool = self.pools.get((host, port))
        if pool is None:
            pool = self.pools[(host, port)] = HttpPool(host, port)
        headers = dict(headers or {})
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        elif method != "GET":
            payload = b""
        answer = await pool.request(request_bytes(method, host, port, path, headers, payload))
        return answer.status, decode_json(answer.body)

    async def websocket(
        self, url: str, headers: dict[str, str], on_text: Callable[[bytes], None]
    ) -> WebSocket:
        host, port, path = split_url(url)
        key = base64.b64encode(os.urandom(16))
        handshake = {
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": key.decode(),
            "Sec-WebSocket-Version": "13",
            **headers,
        }
        loop = asyncio.get_running_loop()
        transport, socket = await loop.create_connection(
            lambda: WebSocket(key, on_text), host, port
        )
        transport.write(request_bytes("GET", host, port, path, handshake, None))
        try:
            await socket.opened
        except BaseException:
            transport.close()
            raise
        return socket

    async def close(self) -> None:
        for pool in self.pools.values():
            pool.close()


class AiohttpSocket:
    """An aiohttp socket behind ``WebSocket``'s interface (``closed``, ``close``)."""

    def __init__(self, socket: Any, on_text: Callable[[str], None]) -> None:
        import aiohttp

        self.socket = socket
        self.closed = False

        async def read() -> None:
            async for message in socket:
                if message.type == aiohttp.WSMsgType.TEXT:
                    on_text(message.data)
            self.closed = True

        self.task = asyncio.ensure_future(read())

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.socket.close()
        self.task.cancel()


class AiohttpClient:
    """The same interface on aiohttp (``--client aiohttp``): a ``ClientSession`` with no limit
    of connections, JSON in and out, ``ws_connect`` with a reader task per socket."""

    name = "aiohttp"

    def __init__(self) -> None:
        import aiohttp

        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))

    async def call(
        self, method: str, url: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        async with self.session.request(method, url, json=body, headers=headers) as response:
            try:
                data = await response.json(content_type=None)
            except ValueError:
                data = {}
            return response.status, data

    async def websocket(
        self, url: str, headers: dict[str, str], on_text: Callable[[str], None]
    ) -> AiohttpSocket:
        socket = await self.session.ws_connect(url, headers=headers, heartbeat=None, max_msg_size=0)
        return AiohttpSocket(socket, on_text)

    async def close(self) -> None:
        await self.session.close()


Client = WireClient | AiohttpClient
CLIENTS = {"wire": WireClient, "aiohttp": AiohttpClient}


@contextlib.asynccontextmanager
async def opened_client(name: str) -> AsyncIterator[Client]:
    """A client of the kind ``--client`` names, closed at the end."""
    client = CLIENTS[name]()
    try:
        yield client
    finally:
        await client.close()
