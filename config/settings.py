"""Settings from environment variables (12-factor).

Every default lets the studio start with nothing else installed: SQLite under var/, and a
Celery broker and result store on the local filesystem, so a real worker runs without a server.
Set DATABASE_URL (postgres://...), CELERY_BROKER_URL and CELERY_RESULT_BACKEND (redis://...)
to run against real services.
"""

from datetime import timedelta
from pathlib import Path

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from .env_values import local_secret_key, proxy_ssl_header

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
if (BASE_DIR / ".env").is_file():
    env.read_env(BASE_DIR / ".env")

# Off unless asked for (`make demo` asks): a forgotten variable must not publish tracebacks.
DEBUG = env.bool("DEBUG", default=False)
# Load the intent model (1.5-4 s) when a process starts rather than at its first chat turn. Unset: on for
# gunicorn, run_studio, runserver and Celery workers, off elsewhere (tests, other commands).
NLU_WARM_UP = env.bool("NLU_WARM_UP", default=None)
VAR_DIR.mkdir(parents=True, exist_ok=True)
# Without SECRET_KEY, one random key is made for this checkout and kept under var/ (shared by the
# web server and the worker of `run_studio`). Deployments set it, the same for every process.
SECRET_KEY = env("SECRET_KEY", default="") or local_secret_key(VAR_DIR / "secret_key")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# --- HTTPS (all off by default: the studio starts on plain http://127.0.0.1) -------------------
# Behind a TLS-terminating proxy set SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https so that
# Django knows a request came over HTTPS; then the redirect, HSTS and secure cookies below.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SECURE_PROXY_SSL_HEADER = proxy_ssl_header(env.list("SECURE_PROXY_SSL_HEADER", default=[]))
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=False)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Before staticfiles so that runserver serves static files the way production does.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "ninja",  # serves the API docs' Swagger UI from static files instead of a CDN
    "csp",
    "axes",
    "catalog_app",
    "orchestrator",
]

MIDDLEWARE = [
    "config.health.HealthMiddleware",  # first: probes pass before the host check and HTTPS redirect
    "config.body_limits.BodyLimitMiddleware",  # before anything reads a body (CSRF reads a form's)
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: it turns a lockout into its answer
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

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
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default has writers in two processes (the web server's threads, the Celery worker).
    # SQLite's defaults make that fail: a transaction that read first and then writes cannot take the
    # write lock while another holds it, and gets "database is locked" at once, busy timeout or not.
    # IMMEDIATE transactions take the write lock at BEGIN, so they wait for it instead (up to `timeout`
    # seconds); WAL lets readers go on while one writes.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "transaction_mode": "IMMEDIATE", "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"})
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -------------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "config.login_throttle.LoginThrottleBackend",  # first: refuses a locked-out login before checking it
    "django.contrib.auth.backends.ModelBackend",
]
# Failed logins, on the studio's form and by HTTP basic auth alike: after LOGIN_FAILURE_LIMIT
# failures for one user name from one address, that pair is refused (429) for LOGIN_LOCKOUT_MINUTES.
# By the pair, so that a stranger cannot lock a user out from elsewhere, and one address cannot
# try many passwords for a name.
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_LOCKOUT_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "config.errors.locked_out"
AXES_VERBOSE = False
# Behind reverse proxies, how many of them append to X-Forwarded-For (`catalog_app/client_ip.py`):
# lockouts and the chat's rate limits then key on the client, not on the proxy.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
AXES_CLIENT_IP_CALLABLE = "catalog_app.client_ip.client_ip"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

# --- I18N -------------------------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files (served by whitenoise) -------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
# Whitenoise warns at start-up about a missing root; collectstatic fills it.
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
# Files are found where they are written, so the studio runs without `collectstatic` (the image
# collects them anyway).
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # No manifest: templates render in tests and dev without running collectstatic first.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# The largest catalog file accepted (upload, paste, API, import_catalog), in bytes. A public tool
# catalog of 4,000 tools is about 1.6 MB of YAML; the default leaves room for five times that.
CATALOG_MAX_BYTES = env.int("CATALOG_MAX_BYTES", default=8 * 1024 * 1024)
# Request bodies are limited per route (`config.body_limits`), before anything reads them: the
# chat's (no login) and the test chat's to CONCERTO_CHAT_MAX_BODY_BYTES (a message is at most
# 2,000 characters), the routes that take catalogs and uploads (/catalogs/, /validation/ and
# their API) to DATA_UPLOAD_MAX_MEMORY_SIZE, anything else to REQUEST_MAX_BYTES.
CONCERTO_CHAT_MAX_BODY_BYTES = env.int("CONCERTO_CHAT_MAX_BODY_BYTES", default=64 * 1024)
REQUEST_MAX_BYTES = env.int("REQUEST_MAX_BYTES", default=2 * 1024 * 1024)
# Anything bigger than a catalog (pasted, so form-encoded: up to 3 bytes a character) is refused
# before it reaches a parser.
DATA_UPLOAD_MAX_MEMORY_SIZE = 3 * CATALOG_MAX_BYTES + 64 * 1024

# --- Content-Security-Policy (django-csp) -------------------------------------------------------
# Scripts only from our own static files (htmx, the editor's script, the API docs' Swagger UI); no
# inline script anywhere. Inline styles stay allowed: htmx injects its indicator style, and the
# downloadable analysis report carries its own <style> so that it reads well saved as one file.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, "'unsafe-inline'"],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [SELF],
    },
}

# --- Celery -----------------------------------------------------------------------------------
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    # Producer and worker on one host share one queue folder (kombu's filesystem transport).
    _queue_dir = VAR_DIR / "celery" / "queue"
    _processed_dir = VAR_DIR / "celery" / "processed"
    _control_dir = VAR_DIR / "celery" / "control"  # broadcast (pidbox) exchanges; else in the cwd
    for _folder in (_queue_dir, _processed_dir, _control_dir):
        _folder.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "processed_folder": str(_processed_dir),
        "control_folder": str(_control_dir),
    }
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # A message taken by a worker that then dies (killed, not only its pool child) goes back to the
    # queue after this many seconds; kombu's default is an hour. Longer than any analysis should
    # run: a message redelivered while its job still runs finds the job's heartbeat fresh and ends.
    # Workers look for such messages every CELERY_RESTORE_INTERVAL seconds (one cheap Redis query;
    # kombu's default looks about every 100 s).
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=900),
        "unacked_restore_interval": env.int("CELERY_RESTORE_INTERVAL", default=10),
        "unacked_restore_throttle": 1,
        # Workers take a mutex in Redis to restore such messages; one killed while holding it would
        # block every restore until the mutex expires (kombu's default: 300 s).
        "unacked_mutex_expire": env.int("CELERY_RESTORE_MUTEX_EXPIRE", default=15),
        # A broker host that does not answer at all (rather than refusing) holds a connect this long,
        # not the system's TCP timeout of minutes: a job start then fails with 503 instead of hanging.
        "socket_connect_timeout": env.float("CELERY_BROKER_CONNECT_TIMEOUT", default=2.0),
    }
    CELERY_BROKER_CONNECTION_TIMEOUT = env.float("CELERY_BROKER_CONNECT_TIMEOUT", default=2.0)
# A running job whose worker wrote no progress for this long has lost its worker: the page says
# so and an admin can re-queue it.
CONCERTO_JOB_STALE_SECONDS = env.int("CONCERTO_JOB_STALE_SECONDS", default=60)
_default_results = VAR_DIR / "celery-results"
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default=f"file://{_default_results}")
if CELERY_RESULT_BACKEND.startswith("file://"):
    Path(CELERY_RESULT_BACKEND.removeprefix("file://")).mkdir(parents=True, exist_ok=True)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Nothing is lost when a worker dies mid-task: the message is acknowledged only after the task
# ran, redelivered if the worker vanished, and a worker holds one message at a time.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)

# --- Live assistants (chat) -----------------------------------------------------------------------
# Hosts skill endpoints may reach: names or "*.example.com"; empty means any public host. Private
# and loopback addresses are refused (server-side request forgery) unless explicitly allowed.
CONCERTO_SKILL_HOSTS = env.list("CONCERTO_SKILL_HOSTS", default=[])
# Fernet keys that seal chat session state at rest (`orchestrator.chat.vault`): the first
# encrypts, all decrypt. Unset: one key derived from SECRET_KEY. Make one with
# `python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"`.
CONCERTO_STATE_KEYS = env.list("CONCERTO_STATE_KEYS", default=[])
CONCERTO_SKILL_ALLOW_PRIVATE = env.bool("CONCERTO_SKILL_ALLOW_PRIVATE", default=False)
CONCERTO_SKILL_TIMEOUT = env.float("CONCERTO_SKILL_TIMEOUT", default=10.0)  # seconds per HTTP skill call
# Chat messages per minute, per session and per client address (session creations per address).
CONCERTO_CHAT_RATE = env.int("CONCERTO_CHAT_RATE", default=30)
# A message leases its session while its turn runs (`orchestrator.chat.services`): longer than a turn with a few
# slow skills takes (each up to CONCERTO_SKILL_TIMEOUT x 2 attempts), since a turn whose lease lapsed
# may be overtaken; it is also how long a worker killed mid-turn keeps its session busy.
CONCERTO_CHAT_LEASE_SECONDS = env.float("CONCERTO_CHAT_LEASE_SECONDS", default=120.0)
# How long a second message to a busy session waits for the lease before its 409 (Retry-After).
CONCERTO_CHAT_LEASE_WAIT = env.float("CONCERTO_CHAT_LEASE_WAIT", default=3.0)
# A turn that calls remote (HTTP) skills holds its web thread while they answer. At most this many
# such turns per process, and per assistant in a process, at once (`orchestrator.chat.skill_slots`);
# beyond, the chat answers 503 "busy, try again" with Retry-After, and the other threads stay free.
_threads = env.int("GUNICORN_THREADS", default=8)
CONCERTO_SKILL_TURNS_PER_PROCESS = env.int("CONCERTO_SKILL_TURNS_PER_PROCESS", default=max(1, _threads - 2))
CONCERTO_SKILL_TURNS_PER_ASSISTANT = env.int("CONCERTO_SKILL_TURNS_PER_ASSISTANT",
                                             default=max(1, CONCERTO_SKILL_TURNS_PER_PROCESS // 2))
# The rate limit counts in this cache: per process by default; point CACHE_URL at redis
# (redis://host:6379/1) when several web processes serve the chat.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    # A Redis that does not answer must not hold web threads (redis-py waits for ever by default).
    CACHES["default"].setdefault("OPTIONS", {}).update({"socket_connect_timeout": 0.5, "socket_timeout": 0.5})
# When that cache cannot be reached (Redis down), the chat's rate limits cannot count:
# "open" serves the chat uncounted (a warning in the log, once a minute per process), "refuse"
# answers 503 with Retry-After (CONCERTO_CHAT_RATE_RETRY_AFTER seconds).
CONCERTO_CHAT_RATE_WHEN_DOWN = env.str("CONCERTO_CHAT_RATE_WHEN_DOWN", default="open")
if CONCERTO_CHAT_RATE_WHEN_DOWN not in ("open", "refuse"):
    raise ImproperlyConfigured(f"CONCERTO_CHAT_RATE_WHEN_DOWN is '{CONCERTO_CHAT_RATE_WHEN_DOWN}'; "
                               "it is 'open' or 'refuse'")
CONCERTO_CHAT_RATE_RETRY_AFTER = env.int("CONCERTO_CHAT_RATE_RETRY_AFTER", default=30)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
}
