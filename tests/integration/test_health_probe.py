"""`/health` keeps its broker probe a few seconds (a load balancer asks every second or two), per
broker URL; and a Redis broker's connect is bounded by the settings, not the system's TCP timeout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from config import health

ROOT = Path(__file__).resolve().parents[2]
NOTHING_LISTENS = "redis://127.0.0.1:1/0"


def test_the_broker_probe_is_kept_for_a_few_seconds_per_broker_url(db, client, monkeypatch):
    from config.celery import app

    probes = []
    monkeypatch.setattr(health, "_last_probe", {})
    monkeypatch.setattr(health, "_probe_broker", lambda app: probes.append(str(app.conf.broker_url)) or "ok")
    for _ in range(3):
        assert client.get("/health").json()["broker"] == "ok"
    assert len(probes) == 1  # one connection for three probes
    monkeypatch.setattr(app.conf, "broker_url", NOTHING_LISTENS)
    client.get("/health")
    assert probes[-1] == NOTHING_LISTENS  # another broker is probed at once, not answered from memory
    monkeypatch.setattr(health, "BROKER_PROBE_TTL", 0.0)
    client.get("/health")
    assert len(probes) == 3  # and once the answer is old, it is asked again


def test_a_redis_broker_connect_has_a_timeout():
    code = ("import json, django; django.setup(); from django.conf import settings as s; "
            "print(json.dumps([s.CELERY_BROKER_TRANSPORT_OPTIONS.get('socket_connect_timeout'), "
            "s.CELERY_BROKER_CONNECTION_TIMEOUT]))")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "CELERY_BROKER_URL": "redis://127.0.0.1:6379/9",
           "CELERY_BROKER_CONNECT_TIMEOUT": "1.5"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [1.5, 1.5]
