from django.apps import AppConfig


class OrchestratorConfig(AppConfig):
    name = "orchestrator"
    verbose_name = "Orchestrator"

    def ready(self) -> None:
        from . import checks  # noqa: F401 (registers the deployment checks)
