from django.apps import AppConfig


class OrchestratorConfig(AppConfig):
    name = "orchestrator"
    verbose_name = "Orchestrator"

    def ready(self) -> None:
        # Promotion lives in catalog_app, which may not import the orchestrator: the gate is handed to it.
        from catalog_app.promotion_gates import gate_register

        from . import checks  # noqa: F401 (registers the deployment checks)
        from .promotion_services import simulation_gate

        gate_register("simulation", simulation_gate)
