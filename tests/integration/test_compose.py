"""docker-compose.yml names things that exist: commands, modules, the image's Dockerfile."""

from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path

import pytest
import yaml
from celery import Celery
from celery.app.utils import find_app
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = ("web", "migrate", "worker")


@pytest.fixture(scope="module")
def services() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def _argv(service: dict) -> list[str]:
    command = service["command"]
    return shlex.split(command) if isinstance(command, str) else list(command)


def _shell_steps(service: dict) -> list[list[str]]:
    """The commands of a service, with `sh -c "a && b"` split into its steps."""
    argv = _argv(service)
    if argv[:2] == ["sh", "-c"]:
        return [shlex.split(step) for step in re.split(r"&&|;", argv[2])]
    return [argv]


def test_required_services_exist(services):
    assert {"web", "migrate", "worker", "postgres", "redis"} <= set(services)
    assert services["postgres"]["image"].startswith("postgres:16")
    assert services["redis"]["image"].startswith("redis:7")


def test_postgres_has_a_readiness_healthcheck(services):
    test = services["postgres"]["healthcheck"]["test"]
    assert "pg_isready" in (test if isinstance(test, str) else " ".join(test))


@pytest.mark.parametrize("name", ["web", "worker"])
def test_app_services_wait_for_migrate_and_postgres(services, name):
    depends = services[name]["depends_on"]
    assert depends["migrate"]["condition"] == "service_completed_successfully"
    assert depends["postgres"]["condition"] == "service_healthy"


def test_app_services_share_one_image_and_environment(services):
    builds = {repr(services[name]["build"]) for name in APP_SERVICES}
    assert len(builds) == 1
    for name in APP_SERVICES:
        env = services[name]["environment"]
        assert env["DATABASE_URL"] == "postgres://postgres:postgres@postgres:5432/concerto"
        assert env["CELERY_BROKER_URL"] == "redis://redis:6379/0"


def test_web_serves_an_importable_wsgi_app(services):
    argv = _argv(services["web"])
    assert argv[0] == "gunicorn"
    # The one positional argument that looks like `module.path[:attribute]`.
    target = next(arg for arg in argv[1:] if re.fullmatch(r"[A-Za-z_][\w.]*(:\w+)?", arg))
    module, _, attribute = target.partition(":")
    application = getattr(importlib.import_module(module), attribute or "application")
    assert callable(application)
    assert "0.0.0.0:8000" in argv


def test_worker_runs_the_project_celery_app(services):
    argv = _argv(services["worker"])
    assert argv[:1] == ["celery"] and "worker" in argv
    app = find_app(argv[argv.index("-A") + 1])
    assert isinstance(app, Celery)
    assert app.conf.task_acks_late and app.conf.task_reject_on_worker_lost


def test_migrate_runs_existing_management_commands(services):
    steps = _shell_steps(services["migrate"])
    named = [step[2] for step in steps if step[:2] == ["python", "manage.py"]]
    assert named[:2] == ["migrate", "load_demo"]
    # The demo's public logins exist only when a deployment asks for them (LOAD_DEMO=1).
    demo = next(step for step in steps if step[2:3] == ["load_demo"])
    assert "--only-if-asked" in demo
    assert services["migrate"]["environment"]["LOAD_DEMO"] == "${LOAD_DEMO:-0}"
    assert set(named) <= set(get_commands())


def test_the_dockerfile_installs_the_pinned_requirements(services):
    build = services["web"]["build"]
    context, dockerfile = (
        (build, "Dockerfile")
        if isinstance(build, str)
        else (build.get("context", "."), build.get("dockerfile", "Dockerfile"))
    )
    text = (ROOT / context / dockerfile).read_text()
    assert re.search(r"^FROM python:3\.11-slim", text, re.MULTILINE)
    assert re.search(r"pip install .*-r requirements/base\.txt", text)
    assert "COPY requirements/base.txt" in text


def test_web_has_a_healthcheck_on_the_health_endpoint(services):
    from config.health import PATH

    test = " ".join(services["web"]["healthcheck"]["test"])
    assert f"http://127.0.0.1:8000{PATH}" in test


def test_worker_has_a_healthcheck_that_pings_it_over_the_broker(services):
    test = " ".join(services["worker"]["healthcheck"]["test"])
    assert "celery -A config inspect ping" in test and "celery@$$HOSTNAME" in test


def test_web_and_image_serve_with_threaded_workers_from_one_config(services):
    """A slow skill call must hold a thread, not a whole sync worker (issue 10, finding 6)."""
    argv = _argv(services["web"])
    config = argv[argv.index("-c") + 1]
    assert config == "config/gunicorn.py"
    dockerfile_cmd = next(line for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("CMD"))
    assert config in dockerfile_cmd
    values: dict = {}
    exec(compile((ROOT / config).read_text(), config, "exec"), values)  # noqa: S102 - our own config file
    assert values["worker_class"] == "gthread" and values["threads"] > 1 and values["workers"] >= 2


def test_the_image_bakes_no_secret_key_into_a_layer():
    """collectstatic loads the settings, which make var/secret_key when SECRET_KEY is unset; a key made
    while building would be in the image, shared by every container run without SECRET_KEY."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    steps = [step for step in re.split(r"\n(?=[A-Z]+ )", dockerfile) if step.startswith("RUN ")]
    for step in steps:
        if "manage.py" in step:
            assert re.search(r"\bSECRET_KEY=\S+ python manage\.py", step), step
