from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command, load_command_class
from django.core.management.base import CommandError

from catalog_app.models import Catalog, CatalogVersion, Element, Intent, Membership, Role, Skill
from catalog_app.selectors import catalog_get, version_latest, version_spec
from catalog_app.services import catalog_import
from orchestrator.engine.catalog.spec_io import dump_catalog, load_catalog

from .specs import EVERY_FIELD

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]

BAD_CATALOG = """\
catalog: Bad Slug
elements:
  - {name: email, format: telepathy}
  - {name: email}
skills:
  - name: mailer
    modes:
      - inputs: [address]
        outcomes: [{name: sent, outputs: [receipt]}]
intents:
  - {name: mail, goal: {}}
"""
BAD_PATHS = [
    "catalog",
    "elements[0].format",
    "elements[1].name",
    "skills[0].modes[0].inputs[0]",
    "skills[0].modes[0].outcomes[0].outputs[0]",
    "intents[0].goal",
]


def _counts() -> list[int]:
    return [m.objects.count() for m in (Catalog, CatalogVersion, Element, Skill, Intent)]


def _run(monkeypatch, *argv: str) -> int:
    """Run a command as `manage.py` would: CommandError -> stderr and an exit status."""
    # run_from_argv closes connections when done, which would end the test's transaction.
    monkeypatch.setattr("django.core.management.base.connections.close_all", lambda: None)
    command = load_command_class("catalog_app", argv[0])
    with pytest.raises(SystemExit) as exited:
        command.run_from_argv(["manage.py", *argv])
    return exited.value.code


# --- load_demo ----------------------------------------------------------------------------------


def test_load_demo_is_idempotent(banking_spec):
    out = StringIO()
    call_command("load_demo", stdout=out)
    call_command("load_demo", stdout=out)

    assert Catalog.objects.count() == 1
    catalog = Catalog.objects.get()
    # The demo runs promoted (version 1); version 2 is a draft copy for analysts to edit.
    assert list(catalog.versions.order_by("number").values_list("status", flat=True)) == ["promoted", "draft"]
    assert version_spec(version=version_latest(catalog=catalog)) == banking_spec
    users = get_user_model().objects
    assert users.get(username="analyst").check_password("analyst")
    admin = users.get(username="admin")
    # A workspace admin has no instance rights (the Django admin is for operators only).
    assert admin.check_password("admin") and not admin.is_staff and not admin.is_superuser
    roles = dict(Membership.objects.values_list("user__username", "role"))
    assert roles == {"analyst": Role.ANALYST, "admin": Role.ADMIN}
    assert "up to date" in out.getvalue()
    assert "analyst / analyst" in out.getvalue()


def test_load_demo_adds_a_version_when_the_stored_demo_differs(workspace, banking_spec):
    catalog_import(workspace=workspace, spec=banking_spec.model_copy(update={"title": "old"}))

    call_command("load_demo", stdout=StringIO())

    catalog = Catalog.objects.get()
    assert catalog.versions.count() == 3  # the old one, the demo promoted, its draft copy
    assert version_spec(version=version_latest(catalog=catalog)) == banking_spec


# --- import_catalog -----------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_import_catalog_by_extension(tmp_path, suffix, every_field_spec):
    path = tmp_path / f"catalog{suffix}"
    path.write_text(dump_catalog(every_field_spec, "json" if suffix == ".json" else "yaml"))
    out = StringIO()

    call_command("import_catalog", str(path), stdout=out)
    call_command("import_catalog", str(path), stdout=out)

    catalog = Catalog.objects.get(slug=EVERY_FIELD["catalog"])
    assert version_spec(version=version_latest(catalog=catalog)) == every_field_spec
    assert "as version 2 (draft)" in out.getvalue()


def test_import_catalog_reports_every_issue_and_saves_nothing(tmp_path, monkeypatch, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_CATALOG)
    before = _counts()

    status = _run(monkeypatch, "import_catalog", str(path))

    err = capsys.readouterr().err
    assert status != 0
    assert "Traceback" not in err
    assert f"{path}: {len(BAD_PATHS)} problems" in err
    lines = err.splitlines()
    for where in BAD_PATHS:
        assert any(line.strip().startswith(f"{where}:") for line in lines), where
    assert _counts() == before


def test_import_catalog_rolls_back_when_a_row_fails(tmp_path, monkeypatch, capsys):
    # Valid as a spec; the second skill's endpoint is too long for its column, so the failure
    # comes after the catalog, version and elements were built.
    data = json.loads(json.dumps(EVERY_FIELD))
    data["skills"][1]["endpoint"] = "https://example.com/" + "x" * 3000
    path = tmp_path / "long.json"
    path.write_text(json.dumps(data))
    before = _counts()

    status = _run(monkeypatch, "import_catalog", str(path))

    assert status != 0
    assert "skills[1].endpoint: Ensure this value has at most" in capsys.readouterr().err
    assert _counts() == before


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("catalog.txt", "catalog: x", "unknown file type '.txt'"),
        ("missing.yaml", None, "cannot read the file"),
        ("broken.json", '{"catalog": ', "malformed JSON"),
        ("broken.yaml", "catalog: [x", "malformed YAML"),
    ],
)
def test_import_catalog_bad_files(tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_text(content)

    with pytest.raises(CommandError, match=message):
        call_command("import_catalog", str(path))

    assert Catalog.objects.count() == 0


def test_import_catalog_cli_exits_non_zero_without_traceback(tmp_path):
    # The real entry point in a child process. It fails before touching the database, so
    # a fresh SQLite file stands in for it.
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_CATALOG)
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}

    done = subprocess.run(
        [sys.executable, "manage.py", "import_catalog", str(path)],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    for where in BAD_PATHS:
        assert f"  {where}:" in done.stderr


# --- export_catalog -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_export_catalog_prints_the_latest_version(workspace, banking_spec, every_field_spec, fmt):
    catalog_import(workspace=workspace, spec=banking_spec.model_copy(update={"title": "old"}))
    catalog_import(workspace=workspace, spec=banking_spec)
    out = StringIO()

    call_command("export_catalog", "banking", "--format", fmt, stdout=out)

    assert out.getvalue() == dump_catalog(banking_spec, fmt)
    assert load_catalog(out.getvalue(), fmt) == banking_spec


def test_export_catalog_default_is_yaml_and_number_picks_a_version(workspace, banking_spec):
    catalog_import(workspace=workspace, spec=banking_spec.model_copy(update={"title": "old"}))
    catalog_import(workspace=workspace, spec=banking_spec)
    latest, first = StringIO(), StringIO()

    call_command("export_catalog", "banking", stdout=latest)
    call_command("export_catalog", "banking", "--number", "1", stdout=first)

    assert latest.getvalue() == dump_catalog(banking_spec)
    assert load_catalog(first.getvalue()).title == "old"
    assert catalog_get(workspace=workspace, slug="banking").versions.count() == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nope"], "unknown catalog 'nope' \\(known: banking\\)"),
        (["banking", "--number", "9"], "unknown version of catalog 'banking' '9'"),
        (["banking", "--workspace", "elsewhere"], "unknown workspace 'elsewhere'"),
    ],
)
def test_export_catalog_unknown_names(workspace, banking_spec, argv, message):
    catalog_import(workspace=workspace, spec=banking_spec)

    with pytest.raises(CommandError, match=message):
        call_command("export_catalog", *argv, stdout=StringIO())
