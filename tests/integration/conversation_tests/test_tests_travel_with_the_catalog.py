"""A catalog's conversation tests travel in its exported file and come back with its import."""

from __future__ import annotations

from io import StringIO

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from orchestrator.conversation_tests.models import ConversationTest

pytestmark = pytest.mark.django_db


def _export(fmt: str = "yaml") -> str:
    out = StringIO()
    call_command("export_catalog", "banking", "--format", fmt, stdout=out)
    return out.getvalue()


def test_export_then_import_brings_the_tests_back(tmp_path, loan_test):
    for fmt in ("yaml", "json"):
        text = _export(fmt)
        data = yaml.safe_load(text)  # JSON is YAML too
        assert data["catalog"] == "banking" and data["conversation_tests"][0]["turns"] == loan_test.turns
        ConversationTest.objects.all().delete()
        path = tmp_path / f"banking.{fmt}"
        path.write_text(text)
        call_command("import_catalog", str(path), stdout=StringIO())
        back = ConversationTest.objects.get()
        assert (back.name, back.mode, back.turns) == ("loan with consent", "planner", loan_test.turns)


def test_a_catalog_without_tests_exports_the_spec_alone(banking):
    assert "conversation_tests" not in yaml.safe_load(_export())


def test_a_bad_test_in_the_file_refuses_the_whole_import_with_its_path(tmp_path, loan_test, client, basic_auth):
    data = yaml.safe_load(_export())
    data["conversation_tests"][0]["turns"][1]["expect"]["asked"] = ["two words"]
    path = tmp_path / "banking.yaml"
    path.write_text(yaml.safe_dump(data))
    versions = loan_test.catalog.versions.count()
    with pytest.raises(CommandError, match=r"conversation_tests\[0\]\.turns\[1\]\.expect\.asked") as caught:
        call_command("import_catalog", str(path), stdout=StringIO())
    assert caught.value.returncode == 1 and loan_test.catalog.versions.count() == versions
    answer = client.post("/api/v1/catalogs/import", yaml.safe_dump(data), content_type="application/yaml", **basic_auth)
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["path"] == "conversation_tests[0].turns[1].expect.asked"


def test_tests_in_a_file_ask_their_own_permission_and_nothing_is_half_imported(monkeypatch, loan_test, client,
                                                                              basic_auth):
    from catalog_app.models import Role
    from catalog_app.permissions import MINIMUM_ROLE, Action

    text = _export()
    versions = loan_test.catalog.versions.count()
    monkeypatch.setitem(MINIMUM_ROLE, Action.CONVERSATION_TEST_SAVE, Role.ADMIN)  # stricter than importing
    answer = client.post("/api/v1/catalogs/import", text, content_type="application/yaml", **basic_auth)
    assert answer.status_code == 403 and "save, edit or delete a conversation test" in answer.json()["detail"]
    assert loan_test.catalog.versions.count() == versions and ConversationTest.objects.count() == 1
