"""Running the real site in processes of its own: daphne (one or several), the worker, and a
database they share (a fresh SQLite file, or a fresh PostgreSQL database when DATABASE_URL is set)."""

from __future__ import annotations

import json
import os
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


def launch_stopped(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m pdc_site.serve`` started on the site in ``env``, for a setting that must stop
    it before it serves: how it ended, its output captured (a minute at most)."""
    command = ["-m", "pdc_site.serve", "-p", str(free_port()), "pdc_site.asgi:application"]
    return subprocess.run(
        [sys.executable, *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


@contextmanager
def launched(application: str, env: dict[str, str]) -> Iterator[tuple[str, subprocess.Popen]]:
    """``python -m pdc_site.serve`` (the site's launcher, without access log) serving
    ``application`` on a free port in ``env``: its base URL and its process, stopped after."""
    port = free_port()
    command = ["-m", "pdc_site.serve", "-v", "0", "-b", "127.0.0.1", "-p", str(port), application]
    process = subprocess.Popen([sys.executable, *command], cwd=ROOT, env=env)
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}", process
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def scratch_postgres(url: str, prefix: str) -> Iterator[str]:
    """A fresh PostgreSQL database on the server of ``url``, dropped afterwards: its URL."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    parts = urlsplit(url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def migrated_scratch_postgres(url: str, prefix: str) -> Iterator[str]:
    """``scratch_postgres``, with this process's Django set up on it (without debug) and the
    site's migrations run: for a benchmark that calls the site in process."""
    with scratch_postgres(url, prefix) as scratch:
        os.environ["DATABASE_URL"] = scratch
        os.environ["DJANGO_DEBUG"] = "0"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        yield scratch


def site_database(tmp: Path) -> tuple[dict[str, str], Callable[[], None]]:
    """Environment for a database of the site's own, and how to drop it afterwards."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        return {"SQLITE_PATH": str(tmp / "site.sqlite3")}, lambda: None
    stack = ExitStack()
    # Named after the database of DATABASE_URL, so that each person's scratch databases keep to
    # the names they were given.
    prefix = f"{urlsplit(url).path.lstrip('/') or 'pdc'}_live"
    return {"DATABASE_URL": stack.enter_context(scratch_postgres(url, prefix))}, stack.close


class LiveSite:
    """A migrated database, any number of daphne processes and optionally the worker."""

    def __init__(self, tmp: Path, extra_env: dict[str, str] | None = None) -> None:
        self.tmp = tmp
        self.stack = ExitStack()
        db_env, drop = site_database(tmp)
        self.stack.callback(drop)
        self.env = {
            **os.environ,
            **db_env,
            "DJANGO_SETTINGS_MODULE": "pdc_site.settings",
            "DJANGO_DEBUG": "0",
            "DJANGO_SERVE_STATIC": "1",
            "PDC_VAR_DIR": str(tmp),
            "PDC_WORKER_TICK": "0.2",
            # No analysis after the game: the workers of these sites play bots and run arenas
            # against the clock (a test that wants it sets it in ``extra_env``).
            "ANALYSIS_SECONDS_PER_MATCH": "0",
            # Sites of parallel tests may share one Redis: each keeps to its own keys.
            "REDIS_PREFIX": f"site-{uuid.uuid4().hex[:10]}",
            "PYTHONUNBUFFERED": "1",
            **(extra_env or {}),
        }
        self.env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        self.log = self.stack.enter_context((tmp / "site.log").open("w"))
        self.manage("migrate", "--noinput")

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
            text=True,
        )
        return done.stdout

    def start(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        """``python *args`` in the site's environment, with ``env`` added to it."""
        process = subprocess.Popen(
            [sys.executable, *args],
            cwd=ROOT,
            env={**self.env, **(env or {})},
            stdout=self.log,
            stderr=self.log,
        )
        self.stack.callback(_stop, process)
        return process

    def start_web(self) -> str:
        """A daphne process; its base URL."""
        port = free_port()
        web = self.start(
            "-m", "pdc_site.serve", "-b", "127.0.0.1", "-p", str(port), "pdc_site.asgi:application"
        )
        wait_for_port(port, web)
        return f"http://127.0.0.1:{port}"

    def start_worker(self) -> subprocess.Popen:
        return self.start("manage.py", "worker")

    def close(self) -> None:
        self.stack.close()

    def log_text(self) -> str:
        self.log.flush()
        return (self.tmp / "site.log").read_text()


def call_api(
    base: str,
    path: str,
    token: str | None = None,
    body: dict | None = None,
    timeout: float = 10,
    context: ssl.SSLContext | None = None,
) -> tuple[int, dict]:
    """A call to a live site (a POST when there is a body): its status and its JSON. ``context``:
    the TLS context of an https site (the certificates it trusts)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode() if body is not None else None,
        headers=headers,
        method="POST" if body is not None else "GET",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            return response.status, _json_or_text(response.read())
    except urllib.error.HTTPError as refusal:
        return refusal.code, _json_or_text(refusal.read())


def _json_or_text(body: bytes) -> dict:
    """The answer's JSON, or ``{"body": text}`` for a page."""
    try:
        return json.loads(body)
    except ValueError:
        return {"body": body.decode(errors="replace")}


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
