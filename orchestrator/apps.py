import os
import sys
import threading

from django.apps import AppConfig
from django.conf import settings


class OrchestratorConfig(AppConfig):
    name = "orchestrator"
    verbose_name = "Orchestrator"

    def ready(self) -> None:
        # Promotion lives in catalog_app, which may not import the orchestrator: the gate is handed to it.
        from catalog_app.promotion_gates import gate_register
        from orchestrator.assistants.promotion import simulation_gate

        from . import checks  # noqa: F401 (registers the deployment checks)

        gate_register("simulation", simulation_gate)

        if _warm_up_wanted():
            from .engine.runtime.intents import warm_up

            # In the background: the server listens at once; a turn that comes before the model is
            # loaded waits for it (the loader holds a lock) instead of loading a second copy.
            threading.Thread(target=warm_up, name="nlu-warm-up", daemon=True).start()


def _warm_up_wanted() -> bool:
    """NLU_WARM_UP when set; else on in the processes that serve chat turns (gunicorn, run_studio's
    server and its Celery worker, runserver) and off in tests and other commands, which need no model."""
    if settings.NLU_WARM_UP is not None:
        return settings.NLU_WARM_UP
    program = os.path.basename(sys.argv[0]) if sys.argv else ""
    return ("gunicorn" in program or bool({"run_studio", "runserver"} & set(sys.argv[1:2]))
            or (program in ("celery", "__main__.py") and "worker" in sys.argv))
