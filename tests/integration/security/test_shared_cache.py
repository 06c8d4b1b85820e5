"""Rate limits need a cache that every web process shares; without one the deployment is told so."""

from __future__ import annotations

import logging
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from orchestrator.checks import shared_cache_check, warn_at_startup

LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
REDIS = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:6379/9"}}


def test_check_deploy_warns_about_a_per_process_cache(settings, monkeypatch):
    # The browser tests' conftest allows Django's ORM under Playwright's event loop for the whole
    # run; `check --deploy` rightly refuses that setting, which no deployment has.
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE", raising=False)
    settings.CACHES = LOCMEM
    err = StringIO()
    call_command("check", deploy=True, stdout=StringIO(), stderr=err)
    assert "concerto.W001" in err.getvalue() and "CACHE_URL" in err.getvalue()


def test_a_shared_cache_passes(settings):
    settings.CACHES = REDIS
    assert shared_cache_check() == []


def test_the_server_says_so_at_start_up(settings, caplog):
    settings.CACHES, settings.DEBUG = LOCMEM, False
    with caplog.at_level(logging.WARNING, logger="concerto.deploy"):
        warn_at_startup()
    assert "concerto.W001" in caplog.text


def test_the_local_demo_is_not_nagged(settings, caplog):
    settings.CACHES, settings.DEBUG = LOCMEM, True
    with caplog.at_level(logging.WARNING, logger="concerto.deploy"):
        warn_at_startup()
    assert caplog.text == ""


@pytest.mark.parametrize("name", ["web", "worker", "migrate"])
def test_compose_gives_every_app_service_the_shared_cache(name):
    compose = yaml.safe_load((Path(__file__).resolve().parents[3] / "docker-compose.yml").read_text())
    assert compose["services"][name]["environment"]["CACHE_URL"].startswith("redis://redis:6379/")
