"""Settings read from the environment.

With nothing set, the site runs on SQLite and the in-memory channel layer (the embedded default);
``DATABASE_URL`` switches to PostgreSQL and ``REDIS_URL`` to Redis for the channel layer and cache.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from redis.exceptions import ConnectionError as RedisConnectionError

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("PDC_VAR_DIR", BASE_DIR / "var"))


def env_flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def pool_priority(text: str) -> int | str:
    """``BOT_POOL_NICE``: a ``nice`` from 0 to 19, or ``idle`` for Linux's idle class."""
    value = text.strip().lower()
    if value == "idle":
        return value
    if not value.isdigit() or int(value) > 19:
        raise ImproperlyConfigured(f"BOT_POOL_NICE must be 0 to 19 or idle, not {text!r}")
    return int(value)


def local_secret_key() -> str:
    """A key kept in var/ so that every process of one checkout signs alike; production sets
    DJANGO_SECRET_KEY instead."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


DEBUG = env_flag("DJANGO_DEBUG")
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or local_secret_key()
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")
]
#: Origins other than the site's own (scheme, host and port) whose pages may post forms and open
#: sockets, such as the public address of a proxy that rewrites the Host header.
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]
#: Proxies (addresses or networks) in front of the site: only when a request comes from one of
#: them is the caller's address read from X-Forwarded-For (for rate limits and login throttling).
TRUSTED_PROXIES = [
    str(ipaddress.ip_network(p.strip(), strict=False))
    for p in os.environ.get("DJANGO_TRUSTED_PROXIES", "").split(",")
    if p.strip()
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "players",
    "games",
    "ratings",
    "arena",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # Before anything reads the request (after the language, so that its refusals are translated).
    "pdc_site.gate.RequestGate",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "pdc_site.urls"
ASGI_APPLICATION = "pdc_site.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "players.context_processors.friend_requests",
            ],
        },
    },
]

DATABASE_URL = os.environ.get("DATABASE_URL")
#: PostgreSQL connections one process keeps open at most (Django's psycopg pool). Every request
#: and every socket's read borrows one only while it runs a query, so the sum over processes
#: stays bounded however many sockets or long polls wait; past it a request waits (up to
#: ``DATABASE_POOL_TIMEOUT`` seconds) for a connection to come back.
DATABASE_POOL_SIZE = int(os.environ.get("DATABASE_POOL_SIZE", "8"))
DATABASE_POOL_TIMEOUT = float(os.environ.get("DATABASE_POOL_TIMEOUT", "20"))
if DATABASE_URL:
    # conn_max_age stays 0: with the pool, "closing" a connection gives it back to the pool.
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_flag(
        "DATABASE_POOL", default=True
    ):
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": min(2, DATABASE_POOL_SIZE),
            "max_size": DATABASE_POOL_SIZE,
            "timeout": DATABASE_POOL_TIMEOUT,
        }
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_flag(
        "DATABASE_PREPARED", default=True
    ):
        # Django binds values on the client and turns psycopg's prepared statements off
        # (``prepare_threshold`` None), so PostgreSQL parsed and planned every query anew. Here
        # every query binds on the server, and one that a connection runs a second time is
        # prepared (psycopg's threshold 1, not 0: a migration's schema change sends several
        # statements in one string, which can run once but never be prepared). PostgreSQL spent
        # about a tenth less of its CPU a move (``docs/live-at-scale.md``, stop 47). The
        # statements of a move (``games.rows``) and a page's reads together (``players.together``)
        # are prepared on their first run. ``DATABASE_PREPARED=0`` behind a pooler that cannot
        # keep prepared statements (PgBouncer in transaction mode): Django's defaults again.
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            {"server_side_binding": True, "prepare_threshold": 1}
        )
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(VAR_DIR / "db.sqlite3")),
            # Several processes (web and worker) share the file: wait for locks, and take the
            # write lock at the start of a transaction so row locks behave like PostgreSQL's.
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
            # A file, not memory: tests with several threads or processes need real locking.
            # One per test process, so that parallel runs never share (or delete) each other's.
            "TEST": {"NAME": str(Path(tempfile.gettempdir()) / f"pdc-test-{os.getpid()}.sqlite3")},
        }
    }

REDIS_URL = os.environ.get("REDIS_URL")
#: Put before every key this site keeps in Redis, so that several sites may share one Redis.
REDIS_PREFIX = os.environ.get("REDIS_PREFIX", "pdc")
#: A pooled connection that Redis closed (it restarted) is opened again and the command tried
#: once more, instead of failing the first command after Redis comes back.
REDIS_CONNECTION = {"retry_on_error": [RedisConnectionError]}
#: The channel layer waits for messages with a blocking read of 5 s (BZPOPMIN); redis-py 8 gives
#: up on any read after 5 s by default, which tore every idle socket down with a TimeoutError.
#: A longer timeout for the layer's reads (still finite: a Redis that vanished is noticed).
LAYER_READ_SECONDS = 15
#: Which channels-redis layer carries the doorbells (see the README, "The channel layer"):
#: "pubsub" (default): one subscription per group and process, a group_send is one PUBLISH that
#: Redis hands to each process once; messages are not kept, and a lost doorbell is caught by
#: the sockets' re-check. "core": the lists-and-sorted-sets layer, one queued message per socket.
CHANNEL_LAYER = os.environ.get("CHANNEL_LAYER", "pubsub")
#: The process that changes a table renders its watchers' parts once and sends them with the
#: doorbell (games/published.py); "0": every process with a socket on the table reads and
#: renders each version itself, as before.
PUBLISH_RENDERS = os.environ.get("PUBLISH_RENDERS", "1") != "0"
#: How long (seconds) a thread may hold the GIL while another waits for it, in a server process
#: (``request_threads.hand_over_sooner``). Python's 0.005 is kept: on a quiet machine 0.001 cost
#: a seventh of a process's moves/s in saturation (47.2 against 54.6, three runs each) and did
#: not lower the p99 at 300 tables (91.8–299 ms against 189 ms; README, stop 20). A smaller
#: value lets the event loop take the GIL back sooner from a rendering thread, for a site that
#: wants a shorter tail more than throughput.
GIL_SWITCH_INTERVAL = float(os.environ.get("GIL_SWITCH_INTERVAL", "0.005"))
#: What one player may do (``games.api.CALLS_PER_WINDOW``, ``games.ratelimit.MOVES_PER_WINDOW``):
#: API calls a minute, and moves (pages and API alike) per ten seconds.
API_CALLS_PER_MINUTE = int(os.environ.get("API_CALLS_PER_MINUTE", "300"))
MOVES_PER_TEN_SECONDS = int(os.environ.get("MOVES_PER_TEN_SECONDS", "30"))
#: HTTP requests one process answers at once (0: every request in flight); the next ones wait on
#: the event loop for a place (``request_threads.Places``). A move holds its place through the
#: watchers' render after its answer: with 3 rather than 2 the next move waits less (README, "The
#: first move of every table").
REQUEST_THREADS_AT_ONCE = int(os.environ.get("REQUEST_THREADS_AT_ONCE", "3"))
#: Redis connections one process's layer may have in use at once (redis-py's pool refuses the
#: next command with "Too many connections" past it; its default is 100).
LAYER_MAX_CONNECTIONS = int(os.environ.get("LAYER_MAX_CONNECTIONS", "1000"))
#: The same for the cache's connections (rate limits, socket caps, who watches a table).
CACHE_MAX_CONNECTIONS = int(os.environ.get("CACHE_MAX_CONNECTIONS", "1000"))
if REDIS_URL:
    layer_host = {
        "address": REDIS_URL,
        "socket_timeout": LAYER_READ_SECONDS,
        "max_connections": LAYER_MAX_CONNECTIONS,
        **REDIS_CONNECTION,
    }
    CHANNEL_LAYERS = {
        "default": {
            # channels-redis's Pub/Sub layer, its PUBLISH sent without its lock (pdc_site/layer.py).
            "BACKEND": "pdc_site.layer.PubSubChannelLayer"
            if CHANNEL_LAYER == "pubsub"
            else "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [layer_host], "prefix": REDIS_PREFIX},
        }
    }
    CACHES = {
        "default": {
            # Reads miss and writes are dropped while Redis is away (pdc_site/cache.py).
            "BACKEND": "pdc_site.cache.ForgivingRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_PREFIX,
            # One pool per process (pdc_site/cache.py) that every request thread borrows from:
            # past redis-py's default of 100 a busy process's requests failed their cache calls
            # with "Too many connections" (bench/live.py at 300 tables).
            "OPTIONS": {**REDIS_CONNECTION, "max_connections": CACHE_MAX_CONNECTIONS},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

#: Each process remembers the API tokens it has looked up (players/auth.py), which needs a cache
#: that every process shares (where a revoke tells them all): on with Redis.
API_TOKEN_CACHE = env_flag("API_TOKEN_CACHE", default=bool(REDIS_URL))
#: Seconds between two writes of the API tokens' last uses that one process has noted, each write
#: one statement for all of them (``players.auth``); 0: each use is written on its own. At 300
#: tables a use was written about every other move, each 0.5 ms of the process's CPU and a
#: commit of its own (README, stop 36).
TOKEN_USES_WRITE_SECONDS = float(os.environ.get("TOKEN_USES_WRITE_SECONDS", "5"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français"), ("de", "Deutsch"), ("it", "Italiano")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
#: ``manage.py collectstatic`` writes hashed names and gzip copies; before it has run, plain names
#: (pdc_site/static.py).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "pdc_site.static.CollectedStaticFilesStorage"},
}
#: Serve /static/ from the ASGI app itself through WhiteNoise (compressed, hashed names cached for
#: ten years). A proxy in front may serve STATIC_ROOT itself instead: DJANGO_SERVE_STATIC=0.
SERVE_STATIC = env_flag("DJANGO_SERVE_STATIC", default=True)
#: Files not collected yet are found in the apps (development, tests); in DEBUG, edits show at once.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Requests are small JSON moves and forms: refuse anything larger early.
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024

SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
if not DEBUG and env_flag("DJANGO_SECURE", default=False):
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

LOGIN_URL = "players:login"
LOGIN_REDIRECT_URL = "games:lobby"
LOGOUT_REDIRECT_URL = "games:home"

# The ladder's covering indexes (ratings.models) carry extra columns on PostgreSQL; SQLite builds
# them without, which is all it needs (its searches read the rows anyway).
SILENCED_SYSTEM_CHECKS = ["models.W040"]

# How long a level-3 bot thinks about one move, in seconds of its own CPU on one core (issue 13);
# a busy machine makes the thought longer, up to search.WALL_CAP times this in wall time, rather
# than weaker. Level-3 turns are played by the worker, never inside a person's request.
BOT_LEVEL3_BUDGET = float(os.environ.get("BOT_LEVEL3_BUDGET", "1.0"))

# The analysis after the game (issue 13): the worker compares every decision of a finished match
# with level 3's choice, spending about this many seconds of wall time on a whole match (split
# evenly over its decisions), at most ANALYSIS_SECONDS_PER_TICK of them in one round of jobs so
# that turn timers and arenas are never held up for long.
ANALYSIS_SECONDS_PER_MATCH = float(os.environ.get("ANALYSIS_SECONDS_PER_MATCH", "30"))
ANALYSIS_SECONDS_PER_TICK = float(os.environ.get("ANALYSIS_SECONDS_PER_TICK", "2"))
# Tests and benchmarks set a fixed number of playouts per decision instead (reproducible).
ANALYSIS_ITERATIONS = None

# Processes of the worker's pool in which level-3 bots think (``games.thinking``): at most this
# many thoughts at once, however many tables wait for one, so that the worker's other jobs and the
# site keep their share of the machine. 0: the worker thinks in its own job, one move per job.
BOT_POOL_SIZE = int(os.environ.get("BOT_POOL_SIZE", "1"))
# The pool's processes run at this lower CPU priority (``nice``, 0-19), or in Linux's idle
# scheduling class (``idle``): a search uses the CPU the site leaves, never the other way round.
BOT_POOL_NICE = pool_priority(os.environ.get("BOT_POOL_NICE", "10"))
# The cores the pool's processes keep to ("0", "1,3", "0-1"; every core when empty). On a
# two-core machine with the daphne kept to core 0, ``BOT_POOL_CPUS=0`` and ``BOT_POOL_NICE=idle``
# leave the other core to PostgreSQL and Redis (README, "Bots beside the tables").
BOT_POOL_CPUS = os.environ.get("BOT_POOL_CPUS", "")
# Whether this worker thinks for the level-3 bots and judges the analysis after the game (in its
# pool, or in its own job with BOT_POOL_SIZE 0). Off, it leaves both to the workers that do, for
# instance on a machine of their own (README, "Bots beside the tables").
WORKER_THINKS = env_flag("WORKER_THINKS", default=True)
