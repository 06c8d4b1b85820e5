"""Redis down: the chat degrades as the deployment chose (served uncounted, or 503), never a 500;
/health says what is down (issue 24, finding 4).

"Down" is a real Redis URL with nothing listening on it, configured as the cache (and the broker).
"""

from __future__ import annotations

import logging
from io import StringIO

import httpx
import pytest
from django.core.management import call_command

from tests.integration.live_server import gunicorn

from .conftest import DEMO_KEY

NOTHING_LISTENS = "redis://127.0.0.1:1/0"
REDIS_DOWN = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": NOTHING_LISTENS,
                          "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}}}
REDIS_UP = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                        "LOCATION": "redis://127.0.0.1:6379/13"}}


@pytest.fixture
def cache_down(settings):
    settings.CACHES = REDIS_DOWN


def test_fail_open_serves_the_chat_and_logs_it_once(demo, widget, cache_down, settings, caplog):
    settings.CONCERTO_CHAT_RATE_WHEN_DOWN = "open"
    with caplog.at_level(logging.WARNING, logger="orchestrator.chat.rate_limits"):
        started = widget.start()
        assert started.status_code == 201, started.content
        answer = widget.send(started.json()["id"], "I'd like to apply for a loan")
    assert answer.status_code == 200, answer.content
    assert answer.json()["replies"][-1]["element"] == "email"
    warnings = [r for r in caplog.records if "rate limits cannot count" in r.getMessage()]
    assert len(warnings) == 1  # one line, not one per request
    assert "serving the chat without rate limits" in warnings[0].getMessage()


def test_refuse_answers_503_with_retry_after(demo, widget, cache_down, settings):
    settings.CONCERTO_CHAT_RATE_WHEN_DOWN = "refuse"
    started = widget.start()
    assert started.status_code == 503
    assert started["Retry-After"] == str(settings.CONCERTO_CHAT_RATE_RETRY_AFTER)
    assert started.json() == {"detail": "the chat is not available right now; try again shortly", "errors": []}
    assert started["Access-Control-Allow-Origin"]  # the widget can read it and say so


def test_a_live_redis_still_counts_the_limits(demo, widget, settings):
    settings.CACHES, settings.CONCERTO_CHAT_RATE = REDIS_UP, 2
    import redis

    redis.Redis.from_url(REDIS_UP["default"]["LOCATION"]).flushdb()
    assert [widget.start().status_code for _ in range(3)] == [201, 201, 429]


def test_health_reports_the_cache_and_the_broker(db, client, cache_down, settings, monkeypatch):
    from config.celery import app

    monkeypatch.setattr(app.conf, "broker_url", NOTHING_LISTENS)
    body = client.get("/health").json()
    assert body == {"status": "degraded", "database": "ok", "cache": "unreachable", "broker": "unreachable"}


@pytest.mark.django_db(transaction=True)
def test_a_real_server_with_redis_down_serves_the_chat_and_says_degraded():
    call_command("load_demo", stdout=StringIO())
    with gunicorn(CACHE_URL=NOTHING_LISTENS, CELERY_BROKER_URL=NOTHING_LISTENS, CELERY_RESULT_BACKEND=NOTHING_LISTENS,
                  GUNICORN_THREADS="2", NLU_WARM_UP="false") as base:
        health = httpx.get(f"{base}/health", timeout=30)
        assert health.status_code == 200
        assert health.json() == {"status": "degraded", "database": "ok", "cache": "unreachable",
                                 "broker": "unreachable"}
        started = httpx.post(f"{base}/api/v1/assistants/{DEMO_KEY}/sessions", timeout=30)
        assert started.status_code == 201, started.text
        answer = httpx.post(f"{base}/api/v1/sessions/{started.json()['id']}/messages", timeout=60,
                            json={"text": "I'd like to apply for a loan", "client_id": "m1"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["replies"][-1]["element"] == "email"
