"""System checks of the orchestrator's deployment: what `check --deploy` and the web server's start-up say.

The chat's rate limits (messages and session starts per minute) count in Django's default cache.
A per-process cache (the local-memory default) lets each of N server processes allow the whole
limit: 3 gunicorn workers allowed 90 session starts where the limit was 30. A deployment with more
than one process needs a shared cache (CACHE_URL=redis://...).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core import checks

PER_PROCESS_CACHES = frozenset({
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
})

logger = logging.getLogger("concerto.deploy")


@checks.register(checks.Tags.caches, deploy=True)
def shared_cache_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    backend = settings.CACHES["default"]["BACKEND"]
    if backend not in PER_PROCESS_CACHES:
        return []
    return [checks.Warning(
        f"The default cache ({backend.rsplit('.', 1)[-1]}) is not shared between processes: each web "
        "process counts the chat's rate limits on its own, so N processes allow N times the limit.",
        hint="Set CACHE_URL to a shared cache, e.g. redis://redis:6379/2 (docker-compose.yml does).",
        id="concerto.W001",
    )]


def warn_at_startup() -> None:
    """Log the deployment warnings when a production server starts (gunicorn runs no system checks)."""
    if settings.DEBUG:
        return
    for message in shared_cache_check():
        logger.warning("%s: %s %s", message.id, message.msg, message.hint)
