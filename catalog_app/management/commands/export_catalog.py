from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog_app.models import Workspace
from catalog_app.selectors import catalog_get, version_get, version_latest, version_spec
from catalog_app.services import DEFAULT_WORKSPACE
from orchestrator.engine.spec_io import dump_catalog

from ._io import user_errors


class Command(BaseCommand):
    help = "Print a catalog version (the latest unless --number) as YAML or JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the catalog's slug")
        parser.add_argument("--format", choices=["yaml", "json"], default="yaml")
        parser.add_argument("--number", type=int, default=None, help="version number (default: latest)")
        parser.add_argument("--workspace", default=DEFAULT_WORKSPACE, help="workspace slug")

    def handle(self, *args: Any, slug: str, format: str, number: int | None, workspace: str, **options: Any):
        space = Workspace.objects.filter(slug=workspace).first()
        if space is None:
            raise CommandError(f"unknown workspace '{workspace}'")
        with user_errors():
            catalog = catalog_get(workspace=space, slug=slug)
            version = (
                version_latest(catalog=catalog)
                if number is None
                else version_get(catalog=catalog, number=number)
            )
        if version is None:
            raise CommandError(f"{slug}: the catalog has no version")
        self.stdout.write(dump_catalog(version_spec(version=version), format), ending="")
