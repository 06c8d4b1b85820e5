"""Gunicorn's settings for the web service: `gunicorn -c config/gunicorn.py config.wsgi:application`.

Read by the Dockerfile's command, docker-compose.yml's `web` and `python -m bench --only load`.
Threaded workers (gthread): a chat turn waiting on a slow skill (up to CONCERTO_SKILL_TIMEOUT x 2
attempts) holds one thread, not a whole process, so other conversations go on; the turn holds no
database transaction while it waits (`orchestrator.chat.services`). Processes give the CPU
parallelism (Python runs one thread at a time per process): about one per core, plus one.

Each thread keeps its own database connection when CONN_MAX_AGE > 0: WEB_CONCURRENCY x
GUNICORN_THREADS connections per web container at most, well under PostgreSQL's default 100.
"""

from __future__ import annotations

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))  # gunicorn's own variable for the process count
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
# gthread's timeout is the worker's heartbeat, not a request limit: a thread blocked on a skill
# does not get its process killed; a process stuck in CPU for this long does.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 30
keepalive = 5  # seconds an idle keep-alive connection (a widget between messages) is kept
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None  # "-" for stdout; off by default (one line per request)


def post_worker_init(worker) -> None:
    """What a worker's first turn would otherwise pay, done once it has loaded the app and before it
    accepts a connection: the NLU model (2-4 s) and the URLconf (every view and API schema, ~0.6 s,
    which Django imports at the first request). Here, not in the master: the master forks the
    workers (also with --preload), and a fork must not copy a load under way."""
    from django.urls import get_resolver

    from orchestrator.apps import warm_up_in_server

    get_resolver().url_patterns  # noqa: B018 (the attribute imports the URLconf)
    seconds = warm_up_in_server()
    if seconds is not None:
        worker.log.info("NLU model loaded in %.1f s", seconds)
