from __future__ import annotations

import pytest
from pydantic import BaseModel

from catalog_app.models import Catalog, CatalogVersion, Element, ModeInput, Skill, VersionStatus, Workspace
from catalog_app.selectors import catalog_get, catalog_list, version_latest, version_live, version_spec
from catalog_app.services import catalog_import, version_update
from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import SpecError, UnknownName

from .specs import EVERY_FIELD

pytestmark = pytest.mark.django_db


def test_banking_demo_round_trips(workspace, banking_spec):
    version = catalog_import(workspace=workspace, spec=banking_spec)

    assert version_spec(version=version) == banking_spec
    assert (version.number, version.status) == (1, VersionStatus.DRAFT)


def test_every_field_round_trips(workspace, every_field_spec, user):
    version = catalog_import(workspace=workspace, spec=every_field_spec, user=user, note="first")

    assert version_spec(version=version) == every_field_spec
    assert (version.created_by, version.note) == (user, "first")
    # Read back from the database, not from the instances the import built.
    fresh = CatalogVersion.objects.get(pk=version.pk)
    assert version_spec(version=fresh).model_dump() == every_field_spec.model_dump()


def test_rows_keep_the_authored_order_and_parents(workspace, every_field_spec):
    version = catalog_import(workspace=workspace, spec=every_field_spec)

    chart = Element.objects.get(version=version, name="pie_chart")
    assert chart.parent.name == "plot"
    mode = Skill.objects.get(version=version, name="scorer").modes.get(name="by_email")
    assert [link.element.name for link in ModeInput.objects.filter(mode=mode)] == ["zip_code", "email"]


def test_second_import_creates_version_2(workspace, banking_spec):
    first = catalog_import(workspace=workspace, spec=banking_spec)
    changed = banking_spec.model_copy(update={"title": "Banking, again"})

    second = catalog_import(workspace=workspace, spec=changed)

    assert Catalog.objects.count() == 1
    assert (first.catalog_id, second.number) == (second.catalog_id, 2)
    assert version_latest(catalog=second.catalog) == second
    assert version_live(catalog=second.catalog) is None
    # Each version keeps its own content.
    assert version_spec(version=first) == banking_spec
    assert version_spec(version=second).title == "Banking, again"
    assert Catalog.objects.get().title == "Banking, again"


def test_catalogs_are_per_workspace(workspace, banking_spec):
    other = Workspace.objects.create(name="Other", slug="other")
    catalog_import(workspace=workspace, spec=banking_spec)
    catalog_import(workspace=other, spec=banking_spec)

    assert [c.slug for c in catalog_list(workspace=other)] == ["banking"]
    assert catalog_get(workspace=other, slug="banking").versions.get().number == 1
    with pytest.raises(UnknownName, match="unknown catalog 'nope'"):
        catalog_get(workspace=workspace, slug="nope")


def test_invalid_spec_built_in_code_is_refused_whole(workspace, banking_spec):
    # Constructed directly, so it skipped parse_catalog's cross-reference checks.
    broken = banking_spec.model_copy(
        update={"elements": (*banking_spec.elements, schema.Element(name="orphan", parent="nowhere"))}
    )

    with pytest.raises(SpecError) as caught:
        catalog_import(workspace=workspace, spec=broken)

    assert [issue.path for issue in caught.value.issues] == ["elements[16].parent"]
    assert Catalog.objects.count() == CatalogVersion.objects.count() == Element.objects.count() == 0


def test_database_limits_are_reported_by_spec_path_and_nothing_is_saved(workspace, every_field_spec):
    data = {**EVERY_FIELD, "skills": [dict(s) for s in EVERY_FIELD["skills"]]}
    data["skills"][1]["endpoint"] = "https://example.com/" + "x" * 3000
    data["title"] = "t" * 300
    spec = CatalogSpec.model_validate(data)

    with pytest.raises(SpecError) as caught:
        catalog_import(workspace=workspace, spec=spec)

    assert {issue.path for issue in caught.value.issues} == {"title"}
    data["title"] = "fine"
    with pytest.raises(SpecError) as caught:
        catalog_import(workspace=workspace, spec=CatalogSpec.model_validate(data))

    assert [issue.path for issue in caught.value.issues] == ["skills[1].endpoint"]
    assert Catalog.objects.count() == CatalogVersion.objects.count() == Element.objects.count() == 0


def test_draft_update_replaces_the_content(workspace, banking_spec, every_field_spec):
    version = catalog_import(workspace=workspace, spec=every_field_spec)
    renamed = banking_spec.model_copy(update={"catalog": every_field_spec.catalog})

    version_update(version=version, spec=renamed, note="now banking")

    version.refresh_from_db()
    assert version_spec(version=version) == renamed
    assert version.note == "now banking"
    assert Element.objects.filter(version=version).count() == len(banking_spec.elements)


def test_update_refuses_a_spec_of_another_catalog(workspace, banking_spec, every_field_spec):
    version = catalog_import(workspace=workspace, spec=every_field_spec)

    with pytest.raises(SpecError, match="not of 'banking'"):
        version_update(version=version, spec=banking_spec)

    assert version_spec(version=version) == every_field_spec


def test_deleting_a_version_takes_its_rows(workspace, every_field_spec):
    version = catalog_import(workspace=workspace, spec=every_field_spec)

    version.delete()

    assert Element.objects.count() == Skill.objects.count() == ModeInput.objects.count() == 0


def _unset_fields(model: BaseModel, seen: dict[tuple[str, str], bool]) -> None:
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        key = (type(model).__name__, name)
        seen[key] = seen.get(key, False) or value != field.get_default(call_default_factory=True)
        for child in value if isinstance(value, tuple) else (value,):
            if isinstance(child, BaseModel):
                _unset_fields(child, seen)


def test_the_every_field_catalog_really_sets_every_field(every_field_spec):
    # Keeps the round-trip test honest when the spec grows a field.
    seen: dict[tuple[str, str], bool] = {}
    _unset_fields(every_field_spec, seen)

    assert [key for key, was_set in seen.items() if not was_set] == []
