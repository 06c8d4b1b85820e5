"""`manage.py chat`: a terminal conversation through the same services as the widget."""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import call_command, load_command_class

from catalog_app.services import catalog_import
from orchestrator.chat.models import ChatSession, Message
from orchestrator.engine.catalog.synthetic import synthetic_catalog
from orchestrator.engine.runtime.masking import MASK
from tests.conftest import ROOT, database_url

LOAN_SCRIPT = "I'd like to apply for a loan\nada@example.com\n123-45-6789\nyes\n$20,000\nyes\n"


def _chat(*args: str, stdin: str) -> list[str]:
    out = StringIO()
    call_command("chat", *args, stdin=StringIO(stdin), stdout=out)
    return out.getvalue().splitlines()


def _run(monkeypatch, capsys, *argv: str) -> tuple[int, str]:
    """Run the command as `manage.py` would: its exit status and what it wrote to stderr."""
    # run_from_argv closes connections when done, which would end the test's transaction.
    monkeypatch.setattr("django.core.management.base.connections.close_all", lambda: None)
    monkeypatch.setattr("sys.stdin", StringIO("quit\n"))
    command = load_command_class("orchestrator", "chat")
    try:
        command.run_from_argv(["manage.py", *argv])
    except SystemExit as exited:
        return int(exited.code or 0), capsys.readouterr().err
    return 0, capsys.readouterr().err


@pytest.mark.django_db
def test_a_loan_conversation_in_the_terminal(demo):
    lines = _chat("banking", stdin=LOAN_SCRIPT + "quit\nthis is never read\n")
    assert lines[0].startswith("Session ") and "'demo-banking'" in lines[0]
    assert lines[1].startswith("bot: Hello!")
    assert "bot: [question] What is your email address?  [email]" in lines
    consent = next(line for line in lines if line.startswith("bot: [consent]"))
    assert consent.endswith("(share ssn with credit_check? yes/no)")
    assert any(line.startswith("bot: [result] Done: apply for a loan.") for line in lines)
    assert lines[-1] == "bot: [question] Would you also like to apply for a credit card?"
    session = ChatSession.objects.get()
    users = list(Message.objects.filter(session=session, role="user").values_list("text", flat=True))
    assert users == ["I'd like to apply for a loan", "ada@example.com", MASK, "yes", "$20,000", "yes"]


@pytest.mark.django_db
def test_the_end_of_input_ends_the_conversation(demo):
    lines = _chat("banking", "--key", "demo-banking", stdin="help\n\n")
    assert lines[-2] == "you: help"
    assert lines[-1].startswith("bot: I can apply for a loan")


@pytest.mark.django_db
def test_an_unknown_catalog_is_a_clear_message_and_a_failure(demo, monkeypatch, capsys):
    status, err = _run(monkeypatch, capsys, "chat", "nope")
    assert status == 2  # the input cannot be used (the README's rule; 1 is for "read, and the answer is no")
    assert err.strip() == "CommandError: unknown catalog 'nope' (known: banking)"


@pytest.mark.django_db
def test_a_catalog_without_assistant_or_an_unknown_key(demo, workspace, monkeypatch, capsys):
    catalog_import(workspace=workspace, spec=synthetic_catalog(5))
    status, err = _run(monkeypatch, capsys, "chat", "synthetic-5-0")
    assert status == 2 and "synthetic-5-0: no assistant runs this catalog" in err
    status, err = _run(monkeypatch, capsys, "chat", "banking", "--key", "other")
    assert status == 2 and "banking: no assistant 'other' runs this catalog" in err


@pytest.mark.django_db(transaction=True)
def test_manage_py_chat_fed_from_a_pipe(demo):
    env = {**os.environ, "DATABASE_URL": database_url()}
    done = subprocess.run([sys.executable, "manage.py", "chat", "banking"], input=LOAN_SCRIPT, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "bot: [result] Done: apply for a loan." in done.stdout
    assert Message.objects.filter(role="user").count() == 6
