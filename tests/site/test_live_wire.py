"""The load generator's own client (``bench/wire.py``): HTTP answers and WebSocket frames in
pieces of any size, against hand-written bytes, a server of the test's own that cuts its answers
where the test says, and real daphne (serving ``bench/wire_app.py``)."""

from __future__ import annotations

import asyncio
import json
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.wire import (
    BINARY,
    CLOSE,
    PING,
    PONG,
    TEXT,
    AnswerReader,
    FrameReader,
    HandshakeError,
    HttpPool,
    WireClient,
    WireError,
    client_frame,
    mask_payload,
    opened_client,
    request_bytes,
)
from tests.live_server import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def daphne() -> Iterator[str]:
    port = free_port()
    command = [sys.executable, "-m", "daphne", "-v", "0", "-b", "127.0.0.1", "-p", str(port)]
    process = subprocess.Popen(
        [*command, "bench.wire_app:application"],
        cwd=ROOT,
    )
    try:
        wait_for_port(port, process)
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


def run(coroutine: object) -> object:
    return asyncio.run(coroutine)


# --- HTTP answers, byte by byte ------------------------------------------------------------------
def feed_bytewise(reader: AnswerReader, data: bytes) -> None:
    for i in range(len(data)):
        reader.feed(data[i : i + 1])


@pytest.mark.parametrize("pieces", ["whole", "bytewise"])
def test_an_answer_with_a_content_length_ends_where_it_says(pieces):
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello" + b"HTTP/1.1 ..."
    reader = AnswerReader()
    if pieces == "whole":
        reader.feed(answer)
    else:
        feed_bytewise(reader, answer[:-12])
    assert reader.done and reader.status == 200 and bytes(reader.body) == b"hello"
    assert reader.headers["x-a"] == "1" and reader.keep_alive
    assert reader.rest == (b"HTTP/1.1 ..." if pieces == "whole" else b"")


@pytest.mark.parametrize("pieces", ["whole", "bytewise"])
def test_a_chunked_answer_is_joined_with_extensions_and_trailers_skipped(pieces):
    answer = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"4;name=value\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-T: 1\r\n\r\n"
    )
    reader = AnswerReader()
    if pieces == "whole":
        reader.feed(answer)
    else:
        feed_bytewise(reader, answer)
    assert reader.done and bytes(reader.body) == b"Wikipedia in\r\n\r\nchunks."
    assert reader.rest == b""


def test_a_chunked_answer_not_finished_is_not_done_and_its_end_is_an_error():
    reader = AnswerReader()
    reader.feed(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel")
    assert not reader.done
    with pytest.raises(WireError):
        reader.eof()


def test_a_chunk_without_its_crlf_is_an_error():
    reader = AnswerReader()
    with pytest.raises(WireError):
        reader.feed(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab1\r\nc\r\n0\r\n\r\n"
        )


def test_an_answer_without_a_length_ends_with_the_connection_and_is_not_kept():
    reader = AnswerReader()
    feed_bytewise(reader, b"HTTP/1.1 200 OK\r\n\r\nall of it")
    assert not reader.done
    reader.eof()
    assert reader.done and bytes(reader.body) == b"all of it" and not reader.keep_alive


def test_a_connection_closed_mid_answer_is_an_error_not_a_short_body():
    reader = AnswerReader()
    reader.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf")
    with pytest.raises(WireError):
        reader.eof()
    before_head = AnswerReader()
    before_head.feed(b"HTTP/1.1 200 OK\r\nContent-Le")
    with pytest.raises(WireError):
        before_head.eof()


def test_no_body_after_204_and_connection_close_is_not_kept():
    reader = AnswerReader()
    reader.feed(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
    assert reader.done and reader.body == b"" and not reader.keep_alive


def test_an_interim_answer_is_skipped():
    reader = AnswerReader()
    reader.feed(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    assert reader.done and reader.status == 200 and bytes(reader.body) == b"ok"


def test_garbage_is_not_an_answer():
    with pytest.raises(WireError):
        AnswerReader().feed(b"SSH-2.0-OpenSSH\r\n\r\n")


# --- WebSocket frames ----------------------------------------------------------------------------
def server_frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    first = (0x80 if fin else 0) | opcode
    n = len(payload)
    if n < 126:
        return struct.pack("!BB", first, n) + payload
    if n < 1 << 16:
        return struct.pack("!BBH", first, 126, n) + payload
    return struct.pack("!BBQ", first, 127, n) + payload


def unmask(frame: bytes) -> tuple[int, int, bytes]:
    """A client frame read as a server would: (FIN and opcode byte, length, payload)."""
    first, second = frame[0], frame[1]
    assert second & 0x80, "a client frame must be masked"
    length, at = second & 0x7F, 2
    if length == 126:
        (length,), at = struct.unpack_from("!H", frame, 2), 4
    elif length == 127:
        (length,), at = struct.unpack_from("!Q", frame, 2), 10
    mask = frame[at : at + 4]
    payload = frame[at + 4 :]
    assert len(payload) == length
    return first, length, bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Frames:
    def __init__(self) -> None:
        self.messages: list[tuple[int, bytes]] = []
        self.controls: list[tuple[int, bytes]] = []
        self.reader = FrameReader(
            lambda op, data: self.messages.append((op, data)),
            lambda op, data: self.controls.append((op, data)),
        )


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 70_000])
def test_a_client_frame_is_masked_with_the_right_length_field(size):
    payload = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    first, length, data = unmask(client_frame(TEXT, payload))
    assert first == 0x80 | TEXT and length == size and data == payload
    head = client_frame(TEXT, payload)[1] & 0x7F
    assert head == (size if size < 126 else 126 if size < 65536 else 127)


def test_masking_twice_gives_the_payload_back():
    assert (
        mask_payload(
            mask_payload(b"a payload of 21 bytes", b"\x01\x02\x03\x04"), b"\x01\x02\x03\x04"
        )
        == b"a payload of 21 bytes"
    )


#: (payload size, bytes per read; None: all at once). A byte at a time only through small frames.
SPLITS = [(size, step) for size in (5, 126, 65535, 65536, 100_000) for step in (3, 4096, None)]


@pytest.mark.parametrize(("size", "step"), [(5, 1), (126, 1), *SPLITS])
def test_frames_of_every_length_field_split_anywhere(size, step):
    payload = b"x" * (size - 1) + b"!"
    data = server_frame(TEXT, payload) + server_frame(BINARY, b"b") + server_frame(TEXT, b"last")
    frames = Frames()
    if step is None:
        frames.reader.feed(data)
    else:
        for i in range(0, len(data), step):
            frames.reader.feed(data[i : i + step])
    assert frames.messages == [(TEXT, payload), (BINARY, b"b"), (TEXT, b"last")]
    assert frames.reader.buffer == b""


def test_a_fragmented_message_is_joined_with_control_frames_between_its_pieces():
    data = (
        server_frame(TEXT, b"<div id=", fin=False)
        + server_frame(PING, b"are you there")
        + server_frame(0, b'"table-status" ', fin=False)
        + server_frame(0, b'data-version="7">', fin=True)
        + server_frame(TEXT, b"next")
    )
    for step in (1, 2, 7, len(data)):
        frames = Frames()
        for i in range(0, len(data), step):
            frames.reader.feed(data[i : i + step])
        assert frames.messages == [
            (TEXT, b'<div id="table-status" data-version="7">'),
            (TEXT, b"next"),
        ]
        assert frames.controls == [(PING, b"are you there")]


@pytest.mark.parametrize(
    "data",
    [
        server_frame(0, b"nothing to continue"),
        server_frame(TEXT, b"a", fin=False) + server_frame(TEXT, b"b"),
        struct.pack("!BB", 0x80 | TEXT, 0x80 | 1) + b"mask" + b"x",  # masked by the server
        struct.pack("!BB", 0xC0 | TEXT, 1) + b"x",  # a reserved bit
        server_frame(PING, b"p" * 126),  # a control frame too long
        server_frame(PING, b"p", fin=False),  # a control frame in pieces
        server_frame(0x3, b"?"),
    ],
)
def test_broken_framing_is_an_error(data):
    with pytest.raises(WireError):
        Frames().reader.feed(data)


# --- a server of the test's own ------------------------------------------------------------------
class RawServer:
    """Answers each request with the next list of byte pieces, each written on its own after a
    drain, so the client reads them in separate pieces; closes when the list runs out."""

    def __init__(self, script: list[list[bytes]]) -> None:
        self.script = list(script)
        self.connections = 0
        self.received: list[bytes] = []

    async def start(self) -> int:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while self.script:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                self.received.append(head + await reader.readexactly(length))
                pieces = self.script.pop(0)
                for piece in pieces:
                    writer.write(piece)
                    await writer.drain()
                    await asyncio.sleep(0)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


def test_keep_alive_reuses_one_connection_and_reads_chunks_cut_anywhere():
    chunked = b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"a\r\n4\r\n": 1\r\n1\r\n}\r\n0\r\n\r\n'
    server = RawServer(
        [
            [b"HTTP/1.1 200 OK\r\nContent-Le", b'ngth: 8\r\n\r\n{"b"', b": 2}"],
            [chunked[:50], chunked[50:53], chunked[53:]],
        ]
    )

    async def scenario() -> list:
        port = await server.start()
        client = WireClient()
        first = await client.call("POST", f"http://127.0.0.1:{port}/x", {"move": 1}, {"A": "b"})
        second = await client.call("GET", f"http://127.0.0.1:{port}/y")
        await client.close()
        return [first, second]

    assert run(scenario()) == [(200, {"b": 2}), (200, {"a": 1})]
    assert server.connections == 1
    post, get = server.received
    assert post.startswith(b"POST /x HTTP/1.1\r\n") and post.endswith(b'\r\n\r\n{"move": 1}')
    assert b"\r\nA: b\r\n" in post and b"\r\nContent-Type: application/json\r\n" in post
    assert get.startswith(b"GET /y HTTP/1.1\r\n") and b"Content-Length" not in get


def test_a_connection_closed_mid_answer_raises_and_the_next_call_opens_a_new_one():
    server = RawServer([[b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{partial"]])

    async def scenario() -> tuple:
        port = await server.start()
        client = WireClient()
        url = f"http://127.0.0.1:{port}/"
        with pytest.raises(WireError):
            await client.call("GET", url)
        server.script = [[b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"]]
        again = await client.call("GET", url)
        await client.close()
        return again

    assert run(scenario()) == (200, {})
    assert server.connections == 2


def test_a_connection_the_server_marks_close_is_not_reused():
    answer = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"
    server = RawServer([[answer], [answer]])

    async def scenario() -> None:
        port = await server.start()
        client = WireClient()
        for _ in range(2):
            assert await client.call("GET", f"http://127.0.0.1:{port}/") == (200, {})
        await client.close()

    run(scenario())
    assert server.connections == 2


def test_a_socket_answers_pings_and_takes_frames_cut_across_reads_and_the_handshake():
    frames = (
        server_frame(TEXT, b"one")
        + server_frame(PING, b"hi")
        + server_frame(TEXT, b"t", fin=False)
        + server_frame(0, b"wo")
        + server_frame(TEXT, b"x" * 70_000)
        + server_frame(CLOSE, struct.pack("!H", 4001))
    )
    received: list[bytes] = []

    def handshake(request: bytes) -> bytes:
        import base64
        import hashlib

        key = next(
            line.split(b":")[1].strip()
            for line in request.split(b"\r\n")
            if line.lower().startswith(b"sec-websocket-key")
        )
        accept = base64.b64encode(
            hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest()
        )
        return (
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
            + accept
            + b"\r\n\r\n"
        )

    class Server(RawServer):
        async def serve(self, reader, writer):
            head = await reader.readuntil(b"\r\n\r\n")
            self.received.append(head)
            whole = handshake(head) + frames
            # The handshake's end and the first frame's start in one read; the rest cut anywhere.
            for start in range(0, len(whole), 997):
                writer.write(whole[start : start + 997])
                await writer.drain()
                await asyncio.sleep(0)
            self.after_upgrade = await reader.read()  # until the client hangs up
            writer.close()

    server = Server([])

    async def scenario():
        port = await server.start()
        client = WireClient()
        socket = await client.websocket(
            f"ws://127.0.0.1:{port}/ws/",
            {"Origin": "http://o", "Cookie": "sessionid=s"},
            received.append,
        )
        await asyncio.wait_for(socket.ended, 10)
        return socket

    socket = run(scenario())
    assert received == [b"one", b"two", b"x" * 70_000]
    assert socket.closed and socket.close_code == 4001
    head = server.received[0]
    assert b"\r\nOrigin: http://o\r\n" in head and b"\r\nCookie: sessionid=s\r\n" in head
    # Our pong, then our close with the server's code, both masked.
    pong = client_frame(PONG, b"hi")
    first, _length, payload = unmask(server.after_upgrade[: len(pong)])
    assert (first, payload) == (0x80 | PONG, b"hi")
    first, _length, payload = unmask(server.after_upgrade[len(pong) :])
    assert (first, payload) == (0x80 | CLOSE, struct.pack("!H", 4001))


def test_a_wrong_accept_is_refused():
    server = RawServer(
        [[b"HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Accept: nope\r\n\r\n"]]
    )

    async def scenario() -> None:
        port = await server.start()
        with pytest.raises(HandshakeError):
            await WireClient().websocket(f"ws://127.0.0.1:{port}/", {}, print)

    run(scenario())


# --- against daphne ------------------------------------------------------------------------------
@pytest.mark.parametrize("client_name", ["wire", "aiohttp"])
def test_daphnes_answers_with_a_length_and_chunked_read_alike_by_both_clients(daphne, client_name):
    async def scenario() -> list:
        async with opened_client(client_name) as client:
            base = f"http://{daphne}"
            auth = {"Authorization": "Bearer t"}
            return [
                await client.call(
                    "POST", base + "/length", {"version": 3, "move": {"cut": [1]}}, auth
                ),
                await client.call("GET", base + "/chunked"),
                await client.call("POST", base + "/chunked"),
            ]

    length, chunked_get, chunked_post = run(scenario())
    assert length == (
        200,
        {"method": "POST", "body": '{"version": 3, "move": {"cut": [1]}}', "auth": "Bearer t"},
    )
    assert chunked_get == (201, {"method": "GET", "body": "", "auth": ""})
    assert chunked_post == (201, {"method": "POST", "body": "", "auth": ""})


def test_daphne_sends_chunked_when_no_length_is_given(daphne):
    """The chunked test above reads what it claims to: daphne does chunk that answer."""
    host, port = daphne.split(":")

    async def scenario() -> AnswerReader:
        pool = HttpPool(host, int(port))
        answer = await pool.request(request_bytes("GET", host, int(port), "/chunked", {}, None))
        pool.close()
        return answer

    answer = run(scenario())
    assert answer.framing == "chunked" and json.loads(answer.body)["method"] == "GET"


def test_daphne_echoes_messages_of_every_length_field_and_closes_with_its_code(daphne):
    sizes = [1, 125, 126, 65535, 65536, 200_000]
    received: list[bytes] = []

    async def scenario():
        async with opened_client("wire") as client:
            socket = await client.websocket(
                f"ws://{daphne}/echo", {"Origin": f"http://{daphne}"}, received.append
            )
            for size in sizes:
                socket.send_text(b"v" * size)
            socket.send_text("bye")
            await asyncio.wait_for(socket.ended, 10)
            return socket

    socket = run(scenario())
    assert [len(m) for m in received] == sizes
    assert socket.closed and socket.close_code == 4001


def test_our_close_is_answered_by_daphne(daphne):
    async def scenario():
        async with opened_client("wire") as client:
            socket = await client.websocket(f"ws://{daphne}/echo", {}, lambda data: None)
            socket.send_text("ping")
            await socket.close()
            return socket

    socket = run(scenario())
    assert socket.closed and socket.ended.done() and socket.close_code == 1000


def test_a_refused_socket_is_a_handshake_error(daphne):
    async def scenario() -> None:
        async with opened_client("wire") as client:
            with pytest.raises(HandshakeError) as refused:
                await client.websocket(f"ws://{daphne}/refuse", {}, lambda data: None)
            assert refused.value.status == 403

    run(scenario())
