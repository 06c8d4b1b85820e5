"""`simulate SLUG [--version N] [--scenario NAME|FILE] [--orchestrator planner|s3] --conversations N
[--seed S] [--queue] [--json]`

Records a simulation run and prints its figures. Without --queue the command computes the
chunks itself; with it they go to the Celery workers and the command waits for them. Exit status
0 when the run finished, 1 when it failed or was cancelled, 2 on bad input.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import yaml
from django.core.management.base import CommandError, CommandParser

from catalog_app.cli import VersionedCommand, add_version_option, resolve_version, user_errors
from catalog_app.services import DEFAULT_WORKSPACE
from orchestrator.jobs.models import JobStatus
from orchestrator.jobs.runner import QueueUnavailable, job_publish
from orchestrator.simulation.models import SimulationRun, SimulationScenario
from orchestrator.simulation.services import run_create, run_execute

BAD_INPUT = 2
MAX_FILE_BYTES = 256 * 1024


class Command(VersionedCommand):
    help = "Simulate conversations with a catalog under a scenario and print the run's figures."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the catalog's slug")
        add_version_option(parser)
        parser.add_argument("--scenario", help="a scenario stored for the catalog, or a YAML/JSON file "
                                               "(default: the catalog's first stored scenario)")
        parser.add_argument("--orchestrator", choices=("planner", "s3"), default="planner")
        parser.add_argument("--conversations", type=int, required=True)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--chunk-size", type=int, default=25)
        parser.add_argument("--explore", action="store_true", help="experiment: after a conversation, try again "
                            "the skills that refused a call, with more of the known values (simulation only)")
        parser.add_argument("--queue", action="store_true", help="hand the chunks to the Celery workers and wait")
        parser.add_argument("--celery-queue", default=None, help="with --queue: the Celery queue its workers serve "
                                                                    "(default: Celery's default queue)")
        parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for the workers")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print one JSON object")
        parser.add_argument("--workspace", default=DEFAULT_WORKSPACE, help="workspace slug")

    def handle(self, *args: Any, slug: str, number: int | None, scenario: str | None, orchestrator: str,
               conversations: int, seed: int, chunk_size: int, queue: bool, celery_queue: str | None,
               timeout: float, as_json: bool, workspace: str, explore: bool = False, **options: Any) -> None:
        try:
            version = resolve_version(slug=slug, number=number, workspace=workspace)
            with user_errors(slug):
                run = run_create(workspace=version.catalog.workspace, version=version,
                                 scenario=_scenario(version.catalog_id, scenario), conversations=conversations,
                                 orchestrator=orchestrator, seed=seed, chunk_size=chunk_size, enqueue=False,
                                 explore=explore)
        except CommandError as exc:
            raise CommandError(str(exc), returncode=BAD_INPUT) from None
        started = time.perf_counter()
        run = _wait(run, timeout, celery_queue) if queue else run_execute(run_id=run.pk)
        seconds = time.perf_counter() - started
        self.stdout.write(json.dumps(_as_data(run, seconds), indent=2) if as_json else _as_text(run, seconds))
        if run.status != JobStatus.DONE:
            raise CommandError(f"simulation {run.pk} {run.status}{': ' + run.error if run.error else ''}")


def _scenario(catalog_id: int, given: str | None) -> Any:
    """The name of a stored scenario, or the data of a scenario file."""
    if given is None:
        first = SimulationScenario.objects.filter(catalog_id=catalog_id).order_by("name").first()
        if first is None:
            raise CommandError("no scenario is stored for this catalog: give --scenario FILE", returncode=BAD_INPUT)
        return first.name
    path = Path(given)
    if not path.suffix and not path.exists():
        return given
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise CommandError(f"{given}: larger than {MAX_FILE_BYTES:,} bytes", returncode=BAD_INPUT)
        return yaml.safe_load(path.read_text())
    except OSError as exc:
        raise CommandError(f"{given}: {exc.strerror or exc}", returncode=BAD_INPUT) from None
    except yaml.YAMLError as exc:
        raise CommandError(f"{given}: not YAML or JSON: {exc}", returncode=BAD_INPUT) from None


def _wait(run: SimulationRun, timeout: float, celery_queue: str | None) -> SimulationRun:
    from orchestrator.simulation.tasks import simulation_start

    try:
        job_publish(simulation_start, run.pk, queue=celery_queue)  # the chunks follow it to that queue
    except QueueUnavailable as exc:
        run.delete()  # nothing was started: no run waits for ever
        raise CommandError(str(exc)) from None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.finished:
            return run
        time.sleep(0.25)
    raise CommandError(f"simulation {run.pk} did not finish within {timeout:g} s "
                       f"({run.done} of {run.conversations} done); is a worker running?")


def _as_data(run: SimulationRun, seconds: float) -> dict[str, Any]:
    summary = run.summary or {}
    return {"id": run.pk, "status": run.status, "catalog": run.version.catalog.slug, "version": run.version.number,
            "scenario": run.scenario_name, "orchestrator": run.orchestrator, "seed": run.seed,
            "conversations": run.conversations, "success_rate": summary.get("success_rate"),
            "seconds": round(seconds, 2), "summary": summary, "differences": run.differences}


def _as_text(run: SimulationRun, seconds: float) -> str:
    summary = run.summary or {}
    lines = [f"simulation {run.pk}: {run.version.catalog.slug} v{run.version.number}, scenario {run.scenario_name}, "
             f"{run.orchestrator} orchestrator, seed {run.seed}: {run.status}",
             f"conversations: {run.conversations} in {seconds:.1f} s ({run.conversations / max(seconds, 1e-9):.1f}/s)"]
    if not summary:
        return "\n".join(lines)
    lines.append(f"goal success: {100 * summary['success_rate']:.1f}% ({summary['successes']} of "
                 f"{summary['conversations']})")
    lines.append("outcomes: " + ", ".join(f"{k} {v}" for k, v in summary["outcomes"].items()))
    for intent, figures in summary["per_intent"].items():
        lines.append(f"  {intent:<24} {100 * figures['success_rate']:5.1f}% of {figures['conversations']:>5}"
                     f"   {figures['turns_mean']:.1f} turns")
    lines.append(f"per conversation: {summary['turns']['mean']:.2f} turns, {summary['questions']['mean']:.2f} "
                 f"questions, {summary['replans']['mean']:.2f} replans, {summary['consents']['mean']:.2f} consent "
                 f"prompts ({summary['consents']['refused']} refused)")
    lines.append("skill calls (failures): " + ", ".join(
        f"{name} {s['calls']} ({s['failures']})" for name, s in summary["skills"].items()))
    planner = summary["planner_ms"]
    lines.append(f"planner time per turn: median {planner['median']:.2f} ms, p95 {planner['p95']:.2f} ms, "
                 f"max {planner['max']:.1f} ms")
    return "\n".join(lines)
