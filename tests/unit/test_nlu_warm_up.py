"""The intent model is loaded when a serving process starts, not in tests or other commands; and where a
server forks the processes that serve, in each of them after the fork, never by a thread before it."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest
from celery.concurrency.prefork import TaskPool
from django.apps import apps as django_apps

from config import celery as celery_config
from config import gunicorn as gunicorn_config
from orchestrator import apps
from orchestrator.engine.runtime.intents import warm_up

GUNICORN = ["/srv/.venv/bin/gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"]
CELERY = ["/srv/.venv/lib/python3.11/site-packages/celery/__main__.py", "-A", "config", "worker"]


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["/srv/.venv/bin/gunicorn", "config.wsgi:application"], True),
        (["manage.py", "run_studio"], True),
        (["manage.py", "runserver", "8000"], True),
        (["/srv/.venv/lib/python3.11/site-packages/celery/__main__.py", "-A", "config", "worker"], True),
        (["/srv/.venv/lib/python3.11/site-packages/gunicorn/__main__.py", "config.wsgi:application"], True),
        (["/srv/.venv/bin/celery", "-A", "config", "inspect", "ping"], False),
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


def test_after_warm_up_a_first_catalog_embeds_only_its_own_phrases(monkeypatch):
    """The first message of a process fits its catalog: the word list and the shipped out-of-scope
    requests (the calibration's) must be ready by then, or that message pays about 0.3 s for them."""
    from orchestrator.engine.runtime import spelling
    from orchestrator.engine.runtime.semantic import SemanticClassifier, default_embedder

    warm_up()
    assert spelling._english is not None
    model = default_embedder()
    encoded: list[str] = []
    encode = model._one
    monkeypatch.setattr(model, "_one", lambda text: encoded.append(text) or encode(text))
    phrases = {"feed_the_giraffe": ["feed the giraffe at noon", "giraffe breakfast"],
               "polish_the_tuba": ["polish my tuba", "make the tuba shine"]}
    classifier = SemanticClassifier(model)
    classifier.fit(phrases)
    classifier.calibrate()
    assert sorted(encoded) == sorted(t for texts in phrases.values() for t in texts)


@pytest.fixture
def loads(monkeypatch, settings) -> list[str]:
    """The threads the model would be loaded in (it is not: warm_up is replaced)."""
    settings.NLU_WARM_UP = None
    threads: list[str] = []

    def record() -> float:
        threads.append(threading.current_thread().name)
        return 0.0

    monkeypatch.setattr("orchestrator.engine.runtime.intents.warm_up", record)
    return threads


def start_app(monkeypatch, argv: list[str]) -> None:
    """What django.setup() does in a process started with `argv`: the app's ready()."""
    monkeypatch.setattr("sys.argv", argv)
    django_apps.get_app_config("orchestrator").ready()
    for thread in threading.enumerate():
        if thread.name == "nlu-warm-up":
            thread.join(timeout=10)


@pytest.mark.parametrize("argv", [GUNICORN, CELERY], ids=["gunicorn", "celery worker"])
def test_servers_that_fork_start_no_thread_and_load_nothing_as_the_app_starts(monkeypatch, loads, argv):
    start_app(monkeypatch, argv)
    assert loads == []  # their own hooks load it, in the processes they fork (below)


def test_the_development_server_loads_it_in_the_background(monkeypatch, loads):
    start_app(monkeypatch, ["manage.py", "run_studio"])
    assert loads == ["nlu-warm-up"]


def test_the_setting_elsewhere_loads_it_at_once_with_no_thread(monkeypatch, loads, settings):
    settings.NLU_WARM_UP = True
    start_app(monkeypatch, ["manage.py", "shell"])
    assert loads == ["MainThread"]


def test_each_gunicorn_worker_loads_it_before_it_serves(monkeypatch, loads):
    monkeypatch.setattr("sys.argv", GUNICORN)
    gunicorn_config.post_worker_init(SimpleNamespace(log=SimpleNamespace(info=lambda *args: None)))
    assert loads == ["MainThread"]


@pytest.mark.parametrize(("pool", "loaded"), [("prefork", []), (TaskPool, []), ("solo", ["MainThread"]),
                                              ("threads", ["MainThread"])])
def test_a_celery_worker_loads_it_in_its_main_process_only_when_that_runs_the_tasks(loads, pool, loaded):
    celery_config._warm_up_the_main_process(sender=SimpleNamespace(pool_cls=pool))
    assert loads == loaded


def test_each_prefork_child_loads_it_as_it_starts(loads):
    celery_config._warm_up_a_pool_child()
    assert loads == ["MainThread"]


def test_servers_leave_it_when_the_setting_says_no(monkeypatch, loads, settings):
    settings.NLU_WARM_UP = False
    monkeypatch.setattr("sys.argv", GUNICORN)
    gunicorn_config.post_worker_init(SimpleNamespace(log=SimpleNamespace(info=lambda *args: None)))
    celery_config._warm_up_a_pool_child()
    celery_config._warm_up_the_main_process(sender=SimpleNamespace(pool_cls="solo"))
    assert loads == []
