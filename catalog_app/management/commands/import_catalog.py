from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog_app.catalog_files import catalog_file_import, catalog_file_load
from catalog_app.cli import BAD_INPUT, read_input, user_errors
from catalog_app.models import Workspace
from catalog_app.services import workspace_get_or_create_default
from orchestrator.engine.catalog.spec_io import Format

FORMATS: dict[str, Format] = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}


class Command(BaseCommand):
    help = "Import a catalog from a YAML or JSON file as a new draft version."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="a .yaml, .yml or .json catalog file")
        parser.add_argument("--workspace", default=None, help="workspace slug (default: the default one)")
        parser.add_argument("--note", default="", help="a note stored with the new version")

    def handle(self, *args: Any, path: str, workspace: str | None, note: str, **options: Any) -> None:
        file = Path(path)
        fmt = FORMATS.get(file.suffix.lower())
        if fmt is None:
            raise CommandError(f"{path}: unknown file type '{file.suffix}'; use .yaml, .yml or .json",
                               returncode=BAD_INPUT)
        data = read_input(path)
        with user_errors(path):
            loaded = catalog_file_load(data, fmt, filename=file.name, max_bytes=settings.CATALOG_MAX_BYTES)
            spec = loaded.spec
            version = catalog_file_import(workspace=_workspace(workspace), file=loaded, note=note)
        self.stdout.write(f"Imported catalog '{spec.catalog}' as version {version.number} (draft).")


def _workspace(slug: str | None) -> Workspace:
    if slug is None:
        return workspace_get_or_create_default()
    found = Workspace.objects.filter(slug=slug).first()
    if found is None:
        raise CommandError(f"unknown workspace '{slug}'", returncode=BAD_INPUT)
    return found
