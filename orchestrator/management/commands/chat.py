"""Talk to a catalog's assistant in the terminal, through the same services as the chat widget.

    python manage.py chat banking [--key demo-banking] [--workspace default]

Reads a line at a time until end of input or `quit`; questions and consent prompts are marked
so that a script (or a person) sees what answer is expected.
"""

from __future__ import annotations

import sys
from typing import IO, Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog_app.cli import BAD_INPUT, user_errors
from catalog_app.models import Workspace
from catalog_app.selectors import catalog_get
from catalog_app.services import DEFAULT_WORKSPACE
from orchestrator.assistants.models import Assistant
from orchestrator.chat.selectors import assistant_for_catalog
from orchestrator.chat.services import message_post, session_create

QUIT = "quit"
PREFIX = {kind: f"[{kind}] " for kind in ("question", "consent", "result", "resumed", "explanation")}


def render_reply(reply: dict[str, Any]) -> str:
    """One reply as a terminal line: the kind's marker, the text, and what is asked for."""
    line = PREFIX.get(reply["kind"], "") + reply["text"]
    if reply["kind"] == "consent":
        line += f"  (share {', '.join(reply.get('elements', []))} with {reply.get('skill')}? yes/no)"
    elif reply["kind"] == "question" and reply.get("element"):
        line += f"  [{reply['element']}]"
    return line


class Command(BaseCommand):
    help = "Chat with a catalog's assistant on the terminal (end with 'quit' or end of input)."
    stealth_options = ("stdin",)  # call_command(..., stdin=StringIO(...)) in tests

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the catalog whose assistant to talk to")
        parser.add_argument("--key", default=None, help="the assistant's key, when the catalog has several")
        parser.add_argument("--workspace", default=DEFAULT_WORKSPACE, help="workspace slug")

    def handle(self, *args: Any, slug: str, key: str | None, workspace: str, **options: Any) -> None:
        stdin: IO[str] = options.get("stdin") or sys.stdin
        assistant = self._assistant(slug, key, workspace)
        session, replies = session_create(assistant=assistant)
        self.stdout.write(f"Session {session.id} with assistant '{assistant.key}'. Type '{QUIT}' to end.")
        self._say(replies)
        echo = not stdin.isatty()  # piped input: show each line as it is sent
        while True:
            line = stdin.readline()
            if not line or line.strip().lower() == QUIT:
                break
            if not line.strip():
                continue
            if echo:
                self.stdout.write(f"you: {line.strip()}")
            with user_errors():
                self._say(message_post(session_id=session.id, text=line))

    def _assistant(self, slug: str, key: str | None, workspace: str) -> Assistant:
        space = Workspace.objects.filter(slug=workspace).first()
        if space is None:
            raise CommandError(f"unknown workspace '{workspace}'", returncode=BAD_INPUT)
        with user_errors():
            catalog = catalog_get(workspace=space, slug=slug)
        assistant = assistant_for_catalog(catalog=catalog, key=key)
        if assistant is None:
            which = f"'{key}' " if key else ""
            raise CommandError(f"{slug}: no assistant {which}runs this catalog (for the demo: manage.py load_demo)",
                               returncode=BAD_INPUT)
        return assistant

    def _say(self, replies: list[dict[str, Any]]) -> None:
        for reply in replies:
            self.stdout.write(f"bot: {render_reply(reply)}")
