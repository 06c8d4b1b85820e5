"""The intent model is loaded when a serving process starts, not in tests or other commands."""

from __future__ import annotations

import pytest

from orchestrator import apps
from orchestrator.engine.runtime.intents import warm_up


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["/srv/.venv/bin/gunicorn", "config.wsgi:application"], True),
        (["manage.py", "run_studio"], True),
        (["manage.py", "runserver", "8000"], True),
        (["/srv/.venv/lib/python3.11/site-packages/celery/__main__.py", "-A", "config", "worker"], True),
        (["/srv/.venv/bin/pytest", "tests"], False),
        (["manage.py", "migrate"], False),
        (["manage.py", "load_demo", "--cold-start"], False),
    ],
)
def test_warm_up_runs_in_serving_processes_only(monkeypatch, settings, argv, wanted):
    settings.NLU_WARM_UP = None
    monkeypatch.setattr("sys.argv", argv)
    assert apps._warm_up_wanted() is wanted


@pytest.mark.parametrize("setting", [True, False])
def test_the_setting_decides_when_set(monkeypatch, settings, setting):
    settings.NLU_WARM_UP = setting
    monkeypatch.setattr("sys.argv", ["manage.py", "migrate"])
    assert apps._warm_up_wanted() is setting


def test_warm_up_loads_the_model_once():
    from orchestrator.engine.runtime.semantic import default_embedder

    warm_up()
    assert warm_up() < 0.5  # loaded: the second call only embeds "hello" (from the cache)
    assert default_embedder() is default_embedder()
