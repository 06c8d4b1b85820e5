"""A draft's update writes only the rows of what changed, and its rows still read back as the spec given."""

from __future__ import annotations

import pytest

from catalog_app.editing import element_added, element_updated
from catalog_app.models import Element, Intent, Mode, Skill
from catalog_app.selectors import version_spec
from catalog_app.services import catalog_import, version_update
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec import Element as SpecElement
from orchestrator.engine.catalog.synthetic import synthetic_catalog
from orchestrator.engine.errors import SpecError

pytestmark = pytest.mark.django_db


def _ids(model: type, version: object) -> dict[str, int]:
    return dict(model.objects.filter(version=version).values_list("name", "pk"))


def _updated(version: object, spec: CatalogSpec) -> CatalogSpec:
    """`spec` saved, then read back from the rows (each update is a new revision: nothing cached)."""
    version_update(version=version, spec=spec)
    version.refresh_from_db()
    return version_spec(version=version)


def test_changing_one_skill_keeps_every_other_row(workspace):
    spec = synthetic_catalog(40, seed=2).model_copy(update={"catalog": "mid"})
    version = catalog_import(workspace=workspace, spec=spec)
    skills, elements, intents = _ids(Skill, version), _ids(Element, version), _ids(Intent, version)
    modes = set(Mode.objects.filter(skill__version=version).exclude(skill__name="s7").values_list("pk", flat=True))
    changed = spec.skill("s7").model_copy(update={"description": "Looks things up"})
    edited = spec.model_copy(update={"skills": tuple(changed if s.name == "s7" else s for s in spec.skills)})

    assert _updated(version, edited) == edited

    after = _ids(Skill, version)
    assert {n: pk for n, pk in after.items() if n != "s7"} == {n: pk for n, pk in skills.items() if n != "s7"}
    assert after["s7"] != skills["s7"]  # a changed skill is written anew, with its modes and links
    assert _ids(Element, version) == elements and _ids(Intent, version) == intents
    assert modes <= set(Mode.objects.filter(skill__version=version).values_list("pk", flat=True))


def test_renames_moves_and_deletions_read_back_as_the_spec_saved(workspace, banking_spec):
    version = catalog_import(workspace=workspace, spec=banking_spec)
    used = banking_spec.skills[0].modes[0].inputs[0]
    # An element used as an input renamed (a row gone, a row new) under a new parent declared
    # after it, and the order of skills and intents reversed.
    spec = element_updated(banking_spec, name=used, new_name=f"{used}_2")
    spec = element_added(spec, name="anything")
    spec = element_updated(spec, name=f"{used}_2", parent="anything")
    spec = spec.model_copy(update={"skills": spec.skills[::-1], "intents": spec.intents[::-1]})

    assert _updated(version, spec) == spec
    # Back again: the renamed element goes, and so does the parent nothing else names.
    assert _updated(version, banking_spec) == banking_spec
    assert Element.objects.filter(version=version).count() == len(banking_spec.elements)


def test_a_large_catalog_replaced_by_a_small_one_loses_its_rows_parents_and_all(workspace):
    big = synthetic_catalog(600, seed=4).model_copy(update={"catalog": "shrinks"})
    assert sum(1 for e in big.elements if e.parent) > 50  # parents and children deleted together
    version = catalog_import(workspace=workspace, spec=big)
    small = synthetic_catalog(3, seed=4).model_copy(update={"catalog": "shrinks"})

    assert _updated(version, small) == small
    assert Element.objects.filter(version=version).count() == len(small.elements)
    assert Skill.objects.filter(version=version).count() == 3


def test_a_refused_update_changes_no_row(workspace, banking_spec):
    version = catalog_import(workspace=workspace, spec=banking_spec)
    before = _ids(Element, version)
    orphan = SpecElement(name="x", parent="nowhere")
    bad = banking_spec.model_copy(update={"elements": banking_spec.elements + (orphan,)})

    with pytest.raises(SpecError):
        version_update(version=version, spec=bad)

    assert _ids(Element, version) == before
    assert version_spec(version=version) == banking_spec
