"""Publish a catalog's promoted version as an assistant (or move an assistant to another one).

    python manage.py publish pizza --key pizza-shop [--version 2] [--orchestrator planner|s3]
                                   [--origin https://shop.example.com https://www.example.com]

Assistants run promoted versions only: without --version, the latest promoted one. Publishing
under an existing key of the same catalog updates that assistant (and enables it again).
It acts as the server's operator (`catalog_app.permissions.OPERATOR`), who holds the database
anyway; studio users publish from the Assistants page or the API, as admins.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from catalog_app.cli import BAD_INPUT, VersionedCommand, add_version_option, user_errors
from catalog_app.models import Workspace
from catalog_app.permissions import OPERATOR
from catalog_app.selectors import catalog_get, version_get
from catalog_app.services import DEFAULT_WORKSPACE
from orchestrator.assistants.services import assistant_publish
from orchestrator.modes import AssistantMode


class Command(VersionedCommand):
    help = "Publish a catalog's promoted version as a chat assistant under a publishable key."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the catalog to publish")
        parser.add_argument("--key", required=True, help="the publishable key (the widget's data-assistant)")
        add_version_option(parser, help="a promoted version (default: the latest)")
        parser.add_argument("--orchestrator", choices=[m.value for m in AssistantMode], default=AssistantMode.PLANNER)
        parser.add_argument("--origin", action="extend", nargs="+", default=None, dest="origins", metavar="URL",
                            help="sites that may embed the widget, e.g. https://shop.example.com (repeatable)")
        parser.add_argument("--name", default="", help="the assistant's name")
        parser.add_argument("--workspace", default=DEFAULT_WORKSPACE, help="workspace slug")

    def handle(self, *args: Any, slug: str, key: str, number: int | None, orchestrator: str,
               origins: list[str] | None, name: str, workspace: str, **options: Any) -> None:
        space = Workspace.objects.filter(slug=workspace).first()
        if space is None:
            raise CommandError(f"unknown workspace '{workspace}'", returncode=BAD_INPUT)
        with user_errors(slug):
            catalog = catalog_get(workspace=space, slug=slug)
            chosen = version_get(catalog=catalog, number=number) if number is not None else None
            assistant, created = assistant_publish(user=OPERATOR, catalog=catalog, key=key, version=chosen,
                                                   mode=orchestrator, allowed_origins=origins, name=name)
        verb = "Published" if created else "Updated"
        origins_text = ", ".join(assistant.allowed_origins) or "none (server-side callers only)"
        self.stdout.write(f"{verb} assistant '{assistant.key}' ({assistant.mode}) on {slug} version "
                          f"{assistant.catalog_version.number}; allowed origins: {origins_text}.")
        self.stdout.write(f'Embed it: <script src="https://HOST/static/concerto/widget.js" '
                          f'data-assistant="{assistant.key}" async></script>')
