"""Settings: production settings pass Django's deployment checks; the embedded default needs
nothing from the environment."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

from tests.live_server import ROOT


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PDC_"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    done = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SECURE="1",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(60),
        DJANGO_ALLOWED_HOSTS="pizza.example",
        PDC_VAR_DIR=str(tmp_path),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_the_embedded_default_runs_on_sqlite_and_the_in_memory_layer(tmp_path):
    code = (
        "from django.conf import settings;"
        "print(settings.DATABASES['default']['ENGINE']);"
        "print(settings.CHANNEL_LAYERS['default']['BACKEND'])"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    done = subprocess.run(
        [sys.executable, "-c", f"import django;django.setup();{code}"],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "pdc_site.settings", "PDC_VAR_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == [
        "django.db.backends.sqlite3",
        "channels.layers.InMemoryChannelLayer",
    ]
