import sys
import threading
from pathlib import Path

from django.apps import AppConfig
from django.conf import settings


class OrchestratorConfig(AppConfig):
    name = "orchestrator"
    verbose_name = "Orchestrator"

    def ready(self) -> None:
        # Promotion lives in catalog_app, which may not import the orchestrator: the gate is handed to it.
        from catalog_app.catalog_files import Section, section_register
        from catalog_app.promotion_gates import gate_register
        from orchestrator.assistants.promotion import simulation_gate
        from orchestrator.conversation_tests.services import (
            conversation_tests_gate,
            tests_checked,
            tests_export,
            tests_store,
        )
        from orchestrator.learning.sandbox import sandbox_gate

        from . import checks  # noqa: F401 (registers the deployment checks)

        gate_register("simulation", simulation_gate)
        gate_register("conversation tests", conversation_tests_gate)
        gate_register("cold-start sandbox", sandbox_gate)  # refinements no admin accepted stay in simulation
        # A catalog's conversation tests travel in its exported file, after the spec.
        section_register("conversation_tests", Section(export=tests_export, check=tests_checked, store=tests_store))

        if _warm_up_wanted():
            _warm_up_from_ready()


def _server() -> str | None:
    """The kind of serving process this is, from its command line: "gunicorn", "celery" (a worker),
    "django" (runserver, run_studio), or None."""
    if not sys.argv:
        return None
    launcher = Path(sys.argv[0])
    # `python -m celery` runs celery/__main__.py: the package names the program.
    program = launcher.parent.name if launcher.name == "__main__.py" else launcher.name
    if "gunicorn" in program:
        return "gunicorn"
    if program == "celery" and "worker" in sys.argv:
        return "celery"
    if {"run_studio", "runserver"} & set(sys.argv[1:2]):
        return "django"
    return None


def _warm_up_wanted() -> bool:
    """NLU_WARM_UP when set; else on in the processes that serve chat turns (gunicorn, run_studio's
    server and its Celery worker, runserver) and off in tests and other commands, which need no model."""
    if settings.NLU_WARM_UP is not None:
        return settings.NLU_WARM_UP
    return _server() is not None


def _warm_up_from_ready() -> None:
    """Load the model as this process starts, in a way no later fork can break.

    A thread must never run in a process that forks: a child gets a copy of every lock the thread
    held (an import of onnx under way, the model's loader) and no thread to release it, and blocks
    for ever on it. gunicorn and Celery's prefork pool fork the processes that serve, so
    they load the model after the fork, from their own hooks (`warm_up_in_server`).
    """
    from .engine.runtime.intents import warm_up

    server = _server()
    if server in ("gunicorn", "celery"):
        return
    if server == "django":
        # runserver and run_studio serve from this process and never fork it (their children are
        # new programs, exec'd at once): in the background, so the server listens at once; a turn
        # that comes before the model is loaded waits for it (the loader holds a lock).
        threading.Thread(target=warm_up, name="nlu-warm-up", daemon=True).start()
        return
    warm_up()  # NLU_WARM_UP=true in another process, which might fork: now, with no thread


def warm_up_in_server() -> float | None:
    """Load the model in this serving process, after any fork (gunicorn's post_worker_init, Celery's
    worker_process_init, or its worker_init when the pool runs tasks in the main process); the
    seconds it took, or None when NLU_WARM_UP=false. Only servers call this: no need to ask which."""
    if settings.NLU_WARM_UP is False:
        return None
    from .engine.runtime.intents import warm_up

    return warm_up()
