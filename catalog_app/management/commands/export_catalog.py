from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from catalog_app.cli import VersionedCommand, add_version_arguments, resolve_version
from catalog_app.selectors import version_spec
from orchestrator.engine.catalog.spec_io import dump_catalog


class Command(VersionedCommand):
    help = "Print a catalog version (the latest unless --number) as YAML or JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        add_version_arguments(parser)
        parser.add_argument("--format", choices=["yaml", "json"], default="yaml")

    def handle(self, *args: Any, slug: str, format: str, number: int | None, workspace: str, **options: Any):
        version = resolve_version(slug=slug, number=number, workspace=workspace)
        self.stdout.write(dump_catalog(version_spec(version=version), format), ending="")
