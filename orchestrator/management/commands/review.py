"""`review SLUG --user NAME [--accept IDS|all] [--reject IDS] [--json]`: the review queue in a terminal.

Without --accept or --reject it lists the pending refinements. Deciding needs an admin of the
workspace (--user): accepted refinements form one new draft, printed with its diff. Exit status 0,
or 2 on bad input (unknown catalog, user or refinement, a role that may not decide).
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog_app.cli import names, user_errors
from catalog_app.models import Workspace
from catalog_app.selectors import catalog_get
from catalog_app.services import DEFAULT_WORKSPACE
from orchestrator.learning.selectors import refinement_list
from orchestrator.learning.services import refinements_decide
from orchestrator.management.commands.learn import refinement_data

BAD_INPUT = 2


class Command(BaseCommand):
    help = "List pending refinements of a catalog, or accept / reject them as an admin."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the catalog's slug")
        parser.add_argument("--user", default="", help="the admin who decides")
        parser.add_argument("--accept", default="", help="refinement ids, comma-separated, or 'all'")
        parser.add_argument("--reject", default="", help="refinement ids, comma-separated")
        parser.add_argument("--json", dest="as_json", action="store_true")
        parser.add_argument("--workspace", default=DEFAULT_WORKSPACE)

    def handle(self, *args: Any, slug: str, user: str, accept: str, reject: str, as_json: bool, workspace: str,
               **options: Any) -> None:
        try:
            space = Workspace.objects.filter(slug=workspace).first()
            if space is None:
                raise CommandError(f"unknown workspace '{workspace}'", returncode=BAD_INPUT)
            with user_errors(slug):
                catalog = catalog_get(workspace=space, slug=slug)
            pending = list(refinement_list(catalog=catalog))
            if not accept and not reject:
                self._list(pending, as_json)
                return
            who = get_user_model().objects.filter(username=user).first()
            if who is None:
                raise CommandError(f"unknown user '{user}': give --user, an admin of the workspace",
                                   returncode=BAD_INPUT)
            accepted = [r.pk for r in pending] if accept == "all" else _ids(accept)
            with user_errors(slug):
                decision = refinements_decide(catalog=catalog, user=who, accept=accepted, reject=_ids(reject))
        except CommandError as exc:
            raise CommandError(str(exc), returncode=BAD_INPUT) from None
        draft = decision.draft
        if as_json:
            self.stdout.write(json.dumps({"draft": draft.number if draft else None, "diff": [str(c) for c in
                                          decision.diff], "accepted": [r.pk for r in decision.accepted],
                                          "rejected": [r.pk for r in decision.rejected]}, indent=2))
            return
        self.stdout.write(f"accepted {len(decision.accepted)}, rejected {len(decision.rejected)}")
        if draft is not None:
            self.stdout.write(f"draft v{draft.number} of {slug}:")
            for change in decision.diff:
                self.stdout.write(f"  {change}")

    def _list(self, pending: list[Any], as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps([refinement_data(r) for r in pending], indent=2))
            return
        for row in pending:
            self.stdout.write(f"#{row.pk} {row.kind:<17} {row.summary}{'  [breaks a plan]' if row.breaks else ''}")


def _ids(text: str) -> list[int]:
    found = names(text)
    if any(not x.isdigit() for x in found):
        raise CommandError(f"refinement ids are numbers: '{text}'", returncode=BAD_INPUT)
    return [int(x) for x in found]
