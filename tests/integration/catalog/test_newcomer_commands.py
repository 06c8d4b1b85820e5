"""The commands a newcomer types first: clear refusals, one exit status for bad input, no orphans."""

from __future__ import annotations

import socket
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog_app.management.commands import run_studio


@pytest.fixture
def spawned(monkeypatch) -> list[list[str]]:
    """Records the processes run_studio would start, and refuses to start any."""
    started: list[list[str]] = []

    def popen(argv, *args, **kwargs):
        started.append(argv)
        raise AssertionError("no worker may start here")

    monkeypatch.setattr(run_studio.subprocess, "Popen", popen)
    return started


def test_run_studio_on_a_busy_port_starts_no_worker(spawned):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = StringIO()
        with pytest.raises(CommandError, match=f"cannot serve on 127.0.0.1:{port}") as raised:
            call_command("run_studio", f"127.0.0.1:{port}", stdout=out)
    assert raised.value.returncode == 2
    assert spawned == [] and "Studio at" not in out.getvalue()


@pytest.mark.parametrize("addrport", ["127.0.0.1:notaport", "127.0.0.1:99999", "nonsense here"])
def test_run_studio_refuses_a_bad_address_before_saying_anything(spawned, addrport):
    out = StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("run_studio", addrport, stdout=out)
    assert raised.value.returncode == 2
    assert out.getvalue() == "" and spawned == []


@pytest.mark.parametrize(("command", "args"), [
    ("import_catalog", ["missing.yaml"]),
    ("validate_plan", ["banking", "--intent", "apply_loan", "--plan", "missing.txt"]),
    ("analyze_trajectories", ["banking", "missing.json"]),
])
def test_a_missing_input_file_exits_2_in_every_command(banking, tmp_path, monkeypatch, command, args):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CommandError, match="missing.*: cannot read the file") as raised:
        call_command(command, *args)
    assert raised.value.returncode == 2


def test_plan_takes_a_skill_with_one_mode_for_its_operation(banking):
    answers = []
    for operation in ("credit_check", "credit_check-m1"):
        with pytest.raises(CommandError) as raised:
            call_command("plan", "banking", "--intent", "apply_loan", "--cannot", f"{operation}:credit_score")
        answers.append(str(raised.value))
    assert answers[0] == answers[1] and "credit_check can no longer be used for it" in answers[0]


def test_plan_asks_which_mode_of_a_skill_with_several(banking):
    with pytest.raises(CommandError, match=r"skill 'lookup_customer' has 2 modes: name one \(lookup_customer-m1:name"):
        call_command("plan", "banking", "--intent", "apply_loan", "--cannot", "lookup_customer:name")


# --- one rule for exit statuses: 2 when the input cannot be used, 1 when it was read and the answer is no ---


@pytest.mark.parametrize(("command", "args"), [
    ("export_catalog", ["nosuch"]),
    ("simulate", ["nosuch", "--conversations", "1"]),
    ("compile_catalog", ["nosuch", "--out", "out"]),
    ("plan", ["nosuch", "--intent", "apply_loan"]),
    ("publish", ["nosuch", "--key", "k"]),
])
def test_an_unknown_catalog_exits_2_in_every_command(banking, command, args):
    with pytest.raises(CommandError, match="nosuch") as raised:
        call_command(command, *args, stdout=StringIO())
    assert raised.value.returncode == 2


def test_a_malformed_catalog_file_exits_2_and_an_invalid_catalog_1(db, tmp_path):
    malformed = tmp_path / "broken.yaml"
    malformed.write_text("catalog: x\nskills: [ {name: a\n")
    with pytest.raises(CommandError, match="malformed YAML") as raised:
        call_command("import_catalog", str(malformed), stdout=StringIO())
    assert raised.value.returncode == 2
    invalid = tmp_path / "invalid.yaml"
    invalid.write_text("catalog: x\nintents: [{name: ask, goal: {known: [nothing_like_it]}}]\n")
    with pytest.raises(CommandError) as raised:
        call_command("import_catalog", str(invalid), stdout=StringIO())
    assert raised.value.returncode == 1


def test_no_plan_exits_1(banking):
    with pytest.raises(CommandError) as raised:
        call_command("plan", "banking", "--intent", "apply_loan", "--cannot", "ask:loan_amount", stdout=StringIO())
    assert raised.value.returncode == 1
