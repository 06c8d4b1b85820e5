from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import yaml
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from catalog_app.cli import user_errors
from catalog_app.models import Catalog, CatalogVersion, Role, VersionStatus, Workspace
from catalog_app.permissions import OPERATOR
from catalog_app.selectors import version_latest, version_spec
from catalog_app.services import (
    catalog_import,
    membership_set,
    user_create,
    version_create_draft,
    version_promote,
    workspace_get_or_create_default,
)
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.services import assistant_create, assistant_set_origins, assistant_set_version
from orchestrator.chat.selectors import assistant_by_key
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.modes import AssistantMode
from orchestrator.simulation.services import scenario_save

DEMO_CATALOG = Path(__file__).resolve().parents[3] / "catalog_app" / "demo" / "banking.yaml"
# Simulation: the banking scenario; with --cold-start also the thin catalog and its own.
DEMO_SCENARIO = ("banking.yaml", "banking-scenario.yaml")
COLD_START = ("banking-thin.yaml", "banking-thin-scenario.yaml")
# The demo chat assistant: its publishable key, and the pages that may embed it: the studio
# (runserver) and the demo "customer site" of `run_widget_demo` on another port.
DEMO_ASSISTANT = "demo-banking"
DEMO_PORTS = (8000, 8001)  # the studio's, the demo site's (`make demo PORT=... WIDGET_DEMO_PORT=...`)


def demo_origins(ports: tuple[int, ...] = DEMO_PORTS) -> list[str]:
    return [f"http://{host}:{port}" for port in ports for host in ("127.0.0.1", "localhost")]


DEMO_ORIGINS = demo_origins()
# Cold start: the thin catalog's assistant starts on S3; only a gated promotion moves it to the planner.
COLD_START_ASSISTANT = "demo-banking-thin"
# (username, password, role): for a local demo only; the passwords are public.
DEMO_USERS = [("analyst", "analyst", Role.ANALYST), ("admin", "admin", Role.ADMIN)]


class Command(BaseCommand):
    help = "Load the banking demo catalog and the demo users (safe to run again)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--only-if-asked", action="store_true",
            help="do nothing unless LOAD_DEMO=1 (how deployments opt in to the demo's public logins)",
        )
        parser.add_argument("--cold-start", action="store_true",
                            help="also load the thin banking catalog (banking-thin) and its simulation scenario")
        parser.add_argument("--ports", type=_ports, default=DEMO_PORTS, metavar="STUDIO,SITE",
                            help="the studio's and the demo site's ports, whose pages may embed the demo "
                                 "assistants (default 8000,8001)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["only_if_asked"] and os.environ.get("LOAD_DEMO", "0") != "1":
            self.stdout.write("Demo not loaded (set LOAD_DEMO=1 to load it, with its public logins).")
            return
        workspace = workspace_get_or_create_default()
        origins = demo_origins(options["ports"])
        with user_errors(str(DEMO_CATALOG)):
            version = self._catalog(workspace)
            self._assistant(workspace, version, origins)
            self._simulations(workspace, [DEMO_SCENARIO, COLD_START] if options["cold_start"] else [DEMO_SCENARIO])
            if options["cold_start"]:
                self._cold_start_assistant(workspace, origins)
        for username, password, role in DEMO_USERS:
            self._user(workspace, username, password, role)
        logins = " or ".join(f"{username} / {password}" for username, password, _ in DEMO_USERS)
        self.stdout.write(f"Log in at /accounts/login/ as {logins}.")

    def _catalog(self, workspace: Workspace) -> CatalogVersion:
        """The promoted version holding the demo spec, imported and promoted when there is none.

        Assistants run promoted versions only; a draft copy is left beside it for analysts to
        edit, so that the editor opens on something editable and edits never reach the live chat.
        """
        spec = load_catalog(DEMO_CATALOG.read_bytes(), "yaml")
        catalog = Catalog.objects.filter(workspace=workspace, slug=spec.catalog).first()
        promoted = (catalog.versions.filter(status=VersionStatus.PROMOTED).order_by("-number").first()
                    if catalog else None)
        if promoted is not None and version_spec(version=promoted) == spec:
            self.stdout.write(f"Catalog '{spec.catalog}' is up to date (version {promoted.number} promoted).")
            return promoted
        latest = version_latest(catalog=catalog) if catalog else None
        if latest is not None and latest.is_draft and version_spec(version=latest) == spec:
            version = latest  # an untouched draft of the demo (an earlier load_demo): promote it
        else:
            version = catalog_import(workspace=workspace, spec=spec, note="demo")
        version = version_promote(version=version, user=None)
        draft = version_create_draft(version=version, user=None)
        self.stdout.write(f"Imported catalog '{spec.catalog}' as version {version.number} (promoted), "
                          f"with draft {draft.number} to edit.")
        return version

    def _assistant(self, workspace: Workspace, version: CatalogVersion, origins: list[str]) -> None:
        """The banking assistant on the promoted demo version, moved along when a new one comes."""
        assistant = assistant_by_key(key=DEMO_ASSISTANT)
        if assistant is None:
            assistant_create(workspace=workspace, version=version, key=DEMO_ASSISTANT, allowed_origins=origins,
                             name="Banking assistant (demo)")
            self.stdout.write(f"Published assistant '{DEMO_ASSISTANT}' on banking version {version.number}.")
        elif assistant.catalog_version_id != version.pk:
            assistant_set_version(user=OPERATOR, assistant=assistant, version=version)
            self.stdout.write(f"Assistant '{DEMO_ASSISTANT}' now runs banking version {version.number}.")
        if assistant is not None:
            _allow(assistant, origins)

    def _simulations(self, workspace: Workspace, pairs: list[tuple[str, str]]) -> None:
        folder = DEMO_CATALOG.parent
        for catalog_file, scenario_file in pairs:
            spec = load_catalog((folder / catalog_file).read_bytes(), "yaml")
            catalog = Catalog.objects.filter(workspace=workspace, slug=spec.catalog).first()
            if catalog is None:
                catalog_import(workspace=workspace, spec=spec, note="demo")
                catalog = Catalog.objects.get(workspace=workspace, slug=spec.catalog)
                self.stdout.write(f"Imported catalog '{spec.catalog}' as version 1 (draft).")
            stored = scenario_save(catalog=catalog, data=yaml.safe_load((folder / scenario_file).read_text()))
            self.stdout.write(f"Scenario '{stored.name}' of '{spec.catalog}' is loaded.")

    def _cold_start_assistant(self, workspace: Workspace, origins: list[str]) -> None:
        """The thin catalog published with the S3 orchestrator, the start of the cold-start story."""
        existing = assistant_by_key(key=COLD_START_ASSISTANT)
        if existing is not None:
            _allow(existing, origins)
            return
        catalog = Catalog.objects.get(workspace=workspace, slug="banking-thin")
        # Assistants run promoted versions only: the sketch as first promoted, a draft beside it to refine.
        version = catalog.versions.filter(status=VersionStatus.PROMOTED).order_by("-number").first()
        if version is None:
            version = version_promote(version=version_latest(catalog=catalog), user=None)
            version_create_draft(version=version, user=None)
        assistant_create(workspace=workspace, version=version, key=COLD_START_ASSISTANT,
                         mode=AssistantMode.S3, allowed_origins=origins, name="Banking assistant (cold start)")
        self.stdout.write(f"Published assistant '{COLD_START_ASSISTANT}' on banking-thin with the S3 orchestrator.")

    def _user(self, workspace: Workspace, username: str, password: str, role: str) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            user = user_create(username=username, password=password, weak_password_allowed=True)
            self.stdout.write(f"Created user '{username}' ({role}).")
        membership_set(workspace=workspace, user=user, role=role)


def _allow(assistant: Assistant, origins: list[str]) -> None:
    """Add the demo pages' origins (an earlier load, other ports): the ones an analyst added stay."""
    if not set(origins) <= set(assistant.allowed_origins):
        assistant_set_origins(user=OPERATOR, assistant=assistant,
                              allowed_origins=[*assistant.allowed_origins, *origins])


def _ports(text: str) -> tuple[int, ...]:
    try:
        ports = tuple(int(part) for part in text.split(","))
    except ValueError:
        ports = ()
    if not ports or not all(0 < port < 65536 for port in ports):
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of ports such as 8000,8001")
    return ports
