"""`GET /health`: is this web process up, and can it reach what it depends on? For compose and load balancers.

Answered by the first middleware, before the host check and the HTTPS redirect: a health probe
calls the container by its own address over plain HTTP, which neither ALLOWED_HOSTS nor
SECURE_SSL_REDIRECT should turn away.

Without its database the process can serve nothing: 503, so a load balancer takes it out. The
cache (the chat's rate limits) and the Celery broker (simulations, analyses, learning jobs) are
reported too, but their outage is no reason to take a web process out (another process would
reach them no better, and the chat keeps answering): 200 with `"status": "degraded"` and the part
that is `"unreachable"`, so a monitor can alert on it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from kombu.exceptions import KombuError

from .errors import UNAVAILABLE, json_error

PATH = "/health"
PROBE_TIMEOUT = 1.0  # seconds a probe of the broker may take
# A probe opens a broker connection; a load balancer asking every second or two would pay for one on
# every request. The last answer is kept this long per process (for the broker URL it was about).
BROKER_PROBE_TTL = 5.0
log = logging.getLogger(__name__)
_last_probe: dict[str, tuple[float, str]] = {}
_probe_lock = threading.Lock()


def cache_state() -> str:
    try:
        cache.get("concerto:health")
    except (redis.RedisError, OSError) as exc:
        log.warning("health: the cache is unreachable: %s", exc)
        return "unreachable"
    return "ok"


def broker_state() -> str:
    from config.celery import app  # imported here: the settings must be read first

    url = str(app.conf.broker_url)
    with _probe_lock:
        seen = _last_probe.get(url)
    if seen is not None and time.monotonic() - seen[0] < BROKER_PROBE_TTL:
        return seen[1]
    state = _probe_broker(app)
    with _probe_lock:
        _last_probe[url] = (time.monotonic(), state)
    return state


def _probe_broker(app: Any) -> str:
    try:
        with app.connection_for_write(connect_timeout=PROBE_TIMEOUT) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=PROBE_TIMEOUT)
    except (KombuError, OSError, redis.RedisError) as exc:
        log.warning("health: the Celery broker is unreachable: %s", exc)
        return "unreachable"
    return "ok"


def health(request: HttpRequest) -> HttpResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except UNAVAILABLE:
        return json_error(503, "the database is not reachable")
    parts = {"database": "ok", "cache": cache_state(), "broker": broker_state()}
    status = "ok" if all(state == "ok" for state in parts.values()) else "degraded"
    return JsonResponse({"status": status, **parts})


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == PATH and request.method in ("GET", "HEAD"):
            return health(request)
        return self.get_response(request)
