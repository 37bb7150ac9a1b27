"""nginx in front of live daphnes, configured by the site's own ``deploy/nginx.conf`` (the README's
deployment): the test of that file (``tests/site/test_behind_proxy.py``) and ``bench/live.py
--proxy`` use it. Only what must differ on this machine is replaced: the upstream's servers, the
address it listens on, the certificate (or none, for a client that speaks no TLS)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.live_server import free_port, wait_for_port
from tests.services_required import missing

ROOT = Path(__file__).resolve().parents[1]
SITE_CONFIG = ROOT / "deploy" / "nginx.conf"

#: nginx's own settings around the site's file: in the foreground, files under ``tmp``, one
#: worker per core as a server would run it.
MAIN_CONFIG = """
daemon off;
master_process on;
worker_processes auto;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {site};
}}
"""


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
    )


def require_nginx() -> str:
    """nginx's path; in CI (CI set) a missing nginx fails the test, elsewhere skips it."""
    found = nginx_binary()
    if not found:
        missing("with nginx", "needs nginx (apt-get install nginx-light)")
    return found


def _replace(text: str, pattern: str, replacement: str, times: int = 1) -> str:
    changed, count = re.subn(pattern, lambda _match: replacement, text, flags=re.M)
    if count != times:
        raise ValueError(f"deploy/nginx.conf: expected {times} × {pattern!r}, found {count}")
    return changed


def site_config(upstreams: list[str], port: int, tls: tuple[Path, Path] | None) -> str:
    """``deploy/nginx.conf`` with ``upstreams`` (``host:port``) as its daphnes, listening on
    ``port`` of 127.0.0.1, over TLS with ``tls`` (certificate, key) or plain HTTP without."""
    text = SITE_CONFIG.read_text()
    servers = "".join(f"    server {upstream};\n" for upstream in upstreams)
    # Both upstreams (spread by load, and by table) list every daphne.
    text = _replace(text, r"^(?:    server 127\.0\.0\.1:\d+;\n)+", servers, times=2)
    listen = f"listen 127.0.0.1:{port}" + (" ssl;" if tls else ";")
    text = _replace(text, r"listen 443 ssl;", listen)
    certificate = f"ssl_certificate     {tls[0]};" if tls else ""
    key = f"ssl_certificate_key {tls[1]};" if tls else ""
    text = _replace(text, r"ssl_certificate\s+\S+;", certificate)
    return _replace(text, r"ssl_certificate_key\s+\S+;", key)


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made with openssl: the client trusts it as its
    own authority."""
    certificate, key = directory / "proxy.pem", directory / "proxy.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(key), "-out", str(certificate),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return certificate, key


@contextmanager
def nginx_in_front(
    tmp: Path, upstreams: list[str], tls: bool = False
) -> Iterator[tuple[str, subprocess.Popen, Path | None]]:
    """nginx serving ``deploy/nginx.conf`` in front of ``upstreams``: its base URL (https with
    ``tls``), its master process, and the certificate a client must trust (None without TLS).
    A test calls ``require_nginx`` first; without nginx this raises."""
    binary = nginx_binary()
    if binary is None:
        raise RuntimeError("nginx is not installed (apt-get install nginx-light)")
    tmp.mkdir(parents=True, exist_ok=True)
    pair = self_signed_certificate(tmp) if tls else None
    port = free_port()
    site = tmp / "pdc-site.conf"
    site.write_text(site_config(upstreams, port, pair))
    main = tmp / "nginx.conf"
    main.write_text(MAIN_CONFIG.format(tmp=tmp, site=site))
    log = (tmp / "nginx-output.log").open("wb")
    process = subprocess.Popen(
        [binary, "-p", str(tmp), "-c", str(main)], stdout=log, stderr=subprocess.STDOUT
    )
    try:
        wait_for_port(port, process)
        scheme = "https" if tls else "http"
        yield f"{scheme}://127.0.0.1:{port}", process, pair[0] if pair else None
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        log.close()
