"""Where Celery's autodiscovery finds the orchestrator's tasks: each feature keeps its own."""

from orchestrator.cold_start.tasks import cold_start_round
from orchestrator.learning.tasks import learning_job_run
from orchestrator.simulation.tasks import simulation_chunk, simulation_start
from orchestrator.validation.tasks import trajectory_analysis_run

__all__ = ["cold_start_round", "learning_job_run", "simulation_chunk", "simulation_start", "trajectory_analysis_run"]
