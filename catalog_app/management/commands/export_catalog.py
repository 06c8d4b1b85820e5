from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from catalog_app.catalog_files import catalog_file_dump
from catalog_app.cli import VersionedCommand, add_version_arguments, resolve_version


class Command(VersionedCommand):
    help = "Print a catalog version (the latest unless --number) as YAML or JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        add_version_arguments(parser)
        parser.add_argument("--format", choices=["yaml", "json"], default="yaml")

    def handle(self, *args: Any, slug: str, format: str, number: int | None, workspace: str, **options: Any):
        version = resolve_version(slug=slug, number=number, workspace=workspace)
        self.stdout.write(catalog_file_dump(version=version, fmt=format), ending="")
