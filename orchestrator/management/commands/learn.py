"""`learn SLUG [--run RUN_ID] [--sessions] [--trajectories FILE] [--json]`: propose spec refinements.

From a simulation run, the catalog's live sessions and/or a file of imported tool-call trajectories
(any format the trajectory analyser reads: NESTFUL samples, `{samples, tools}`, JSON Lines, a bare
list of calls; a call names a skill or `skill.mode`). Learns in this process (no worker needed).

The proposals are queued for an admin's review (pending refinements of the catalog; learning again
refreshes them) and printed with their evidence and their effect on plans. Exit status 0 when
the learner ran (even with nothing to propose), 2 on bad input.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog_app.cli import user_errors
from catalog_app.models import Workspace
from catalog_app.selectors import catalog_get
from catalog_app.services import DEFAULT_WORKSPACE
from orchestrator.engine.analysis.trajectory_io import decode_json
from orchestrator.learning.models import Refinement
from orchestrator.learning.services import refinements_propose
from orchestrator.simulation.models import SimulationRun

BAD_INPUT = 2


class Command(BaseCommand):
    help = "Propose spec refinements from a simulation run and/or live sessions, for an admin to review."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the catalog's slug")
        parser.add_argument("--run", dest="run_id", type=int, default=None, help="a finished simulation run")
        parser.add_argument("--sessions", action="store_true", help="also learn from the catalog's live sessions")
        parser.add_argument("--trajectories", default=None, metavar="FILE",
                            help="imported tool-call trajectories (JSON or JSON Lines)")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print one JSON object")
        parser.add_argument("--workspace", default=DEFAULT_WORKSPACE, help="workspace slug")

    def handle(self, *args: Any, slug: str, run_id: int | None, sessions: bool, trajectories: str | None,
               as_json: bool, workspace: str, **options: Any) -> None:
        try:
            space = Workspace.objects.filter(slug=workspace).first()
            if space is None:
                raise CommandError(f"unknown workspace '{workspace}'", returncode=BAD_INPUT)
            if run_id is None and not sessions and trajectories is None:
                raise CommandError("give --run RUN_ID, --sessions, --trajectories FILE, or several",
                                   returncode=BAD_INPUT)
            with user_errors(slug):
                imported = None
                if trajectories is not None:
                    try:
                        with open(trajectories, "rb") as handle:
                            imported = decode_json(handle.read(), f"{trajectories}")
                    except OSError as exc:
                        raise CommandError(f"cannot read {trajectories}: {exc.strerror}",
                                           returncode=BAD_INPUT) from None
                catalog = catalog_get(workspace=space, slug=slug)
                run = None
                if run_id is not None:
                    run = SimulationRun.objects.filter(pk=run_id, workspace=space).select_related("version").first()
                    if run is None:
                        raise CommandError(f"no simulation {run_id} in workspace '{workspace}'", returncode=BAD_INPUT)
                rows = refinements_propose(catalog=catalog, run=run, sessions=sessions, trajectories=imported)
        except CommandError as exc:
            raise CommandError(str(exc), returncode=BAD_INPUT) from None
        if as_json:
            self.stdout.write(json.dumps({"catalog": slug, "run": run_id, "sessions": sessions,
                                          "trajectories": trajectories,
                                          "refinements": [refinement_data(r) for r in rows]}, indent=2))
            return
        self.stdout.write(f"{len(rows)} refinement{'s' if len(rows) != 1 else ''} pending review for {slug}"
                          + (f" (from simulation {run_id})" if run_id else ""))
        for row in rows:
            flag = "  [makes an intent unplannable]" if row.breaks else ""
            self.stdout.write(f"  #{row.pk} {row.kind:<17} {row.summary} (confidence {row.confidence:.2f}){flag}")
            for effect in row.effects:
                self.stdout.write(f"      {effect['text']}")


def refinement_data(row: Refinement) -> dict[str, Any]:
    return {"id": row.pk, "kind": row.kind, "key": row.key, "subject": row.subject, "change": row.change,
            "summary": row.summary, "evidence": row.evidence, "confidence": row.confidence, "effects": row.effects,
            "breaks": row.breaks, "status": row.status, "version": row.version.number}
