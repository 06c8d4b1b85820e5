
"""The editing services on PostgreSQL: each change is checked like an import, then saved whole."""

from __future__ import annotations

from functools import partial

import pytest

from catalog_app import editing
from catalog_app.errors import VersionLocked
from catalog_app.selectors import version_spec
from catalog_app.services import catalog_create, version_promote
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.catalog.toolspec import parse_tools, propose
from orchestrator.engine.errors import SpecError

pytestmark = pytest.mark.django_db


def edit(change, *, version, **fields):
    """One editor change applied to a draft, as the studio's forms apply it."""
    return editing.version_edit(version=version, change=partial(change, **fields))


def spec_of(version):
    version.refresh_from_db()
    return version_spec(version=version)


def test_element_add_is_saved(banking):
    edit(editing.element_added, version=banking, name="phone", description="your phone", format="phone")

    assert spec_of(banking).element("phone").format == "phone"


def test_moving_an_element_under_its_own_child_is_refused_and_nothing_changes(banking):
    before = spec_of(banking)

    with pytest.raises(SpecError) as caught:
        edit(editing.element_updated, version=banking, name="document", parent="passport", description="a document")

    assert "the type tree has a cycle: document -> passport -> document" in str(caught.value)
    assert spec_of(banking) == before


def test_moving_an_element_changes_the_tree(banking):
    edit(editing.element_updated, version=banking, name="drivers_license", parent=None, description="a licence")

    assert spec_of(banking).element("drivers_license").parent is None


def test_renaming_an_element_renames_every_use(banking):
    edit(editing.element_updated, version=banking, name="email", new_name="email_address", format="email")

    spec = spec_of(banking)
    lookup = spec.skill("lookup_customer")
    assert lookup.modes[0].inputs == ("email_address",)
    assert "email_address" in lookup.modes[1].outcomes[0].outputs
    assert "email" not in {e.name for e in spec.elements}


def test_deleting_an_element_in_use_is_refused_with_where(banking):
    with pytest.raises(editing.EditRefused) as caught:
        edit(editing.element_removed, version=banking, name="credit_score")

    message = str(caught.value)
    assert "an output of `credit_check`, outcome `scored`" in message
    assert "an input of `submit_loan`" in message
    assert "credit_score" in {e.name for e in spec_of(banking).elements}


def test_deleting_an_unused_element(banking):
    edit(editing.element_added, version=banking, name="nickname")

    edit(editing.element_removed, version=banking, name="nickname")

    assert "nickname" not in {e.name for e in spec_of(banking).elements}


def test_skill_add_creates_its_new_elements(empty):
    edit(editing.skill_added, version=empty, name="lookup", inputs=("email",), outputs=("name", "address"))

    spec = spec_of(empty)
    assert [(e.name, e.askable) for e in spec.elements] == [("email", True), ("name", False), ("address", False)]
    assert [o.name for o in spec.skill("lookup").modes[0].outcomes] == ["success", "failure"]


def test_skill_add_with_a_bad_element_name_is_refused_on_its_field(empty):
    with pytest.raises(editing.EditRefused) as caught:
        edit(editing.skill_added, version=empty, name="lookup", inputs=("Email Address",))

    assert caught.value.path == "inputs"
    assert "is not a valid name" in str(caught.value)
    assert spec_of(empty).skills == ()


def test_renaming_a_skill_and_a_mode_follows_into_goals(banking):
    edit(editing.skill_updated,
        version=banking, name="submit_credit_card", new_name="card_service", description="cards", max_retries=1
    )
    spec = editing.version_edit(
        version=banking,
        change=lambda s: editing.mode_updated(
            s, skill="card_service", index=0, name="apply_now", inputs=("name", "address", "income", "card_type")
        ),
    )

    assert spec.intent("apply_credit_card").goal.done == ("card_service.apply_now",)
    assert spec_of(banking).intent("check_card_status").goal.done == ("card_service.status",)


def test_deleting_a_skill_an_intent_runs_is_refused(banking):
    with pytest.raises(editing.EditRefused, match="the goal of intent `apply_credit_card`"):
        edit(editing.skill_removed, version=banking, name="submit_credit_card")


def test_outcomes_and_modes_keep_at_least_one(banking):
    spec = edit(editing.outcome_added, version=banking, skill="credit_check", mode=0, name="frozen")
    assert [o.name for o in spec.skill("credit_check").modes[0].outcomes] == ["scored", "unavailable", "frozen"]

    with pytest.raises(editing.EditRefused, match="at least one outcome"):
        editing.version_edit(
            version=banking,
            change=lambda s: editing.outcome_removed(
                editing.outcome_removed(
                    editing.outcome_removed(s, skill="credit_check", mode=0, index=2),
                    skill="credit_check",
                    mode=0,
                    index=1,
                ),
                skill="credit_check",
                mode=0,
                index=0,
            ),
        )
    with pytest.raises(editing.EditRefused, match="a skill needs at least one"):
        editing.version_edit(version=banking, change=partial_mode_removed("credit_check", 0))


def partial_mode_removed(skill, index):
    return lambda s: editing.mode_removed(s, skill=skill, index=index)


def test_intents_rename_carries_follow_ups_and_delete_checks_them(banking):
    edit(editing.intent_updated,
        version=banking,
        name="apply_credit_card",
        new_name="get_card",
        goal_done=("submit_credit_card.apply",),
        examples=("a card please",),
    )

    spec = spec_of(banking)
    assert spec.intent("apply_loan").extensions == ("get_card",)
    with pytest.raises(editing.EditRefused, match="offered after `apply_loan`"):
        edit(editing.intent_removed, version=banking, name="get_card")


def test_settings_update(banking):
    edit(editing.settings_updated,
        version=banking, title="Bank", privacy="per_element", cost_skill=2, cost_ask=9, cost_authorize=1
    )

    spec = spec_of(banking)
    assert (spec.title, spec.privacy, spec.costs.ask) == ("Bank", "per_element", 9)


def test_a_promoted_version_cannot_be_edited(banking):
    version_promote(version=banking, user=None)

    with pytest.raises(VersionLocked):
        edit(editing.element_added, version=banking, name="phone")


def test_promotion_needs_an_admin(banking, analyst, admin):
    with pytest.raises(editing.NotAllowed):
        editing.version_promote_checked(version=banking, user=analyst)
    banking.refresh_from_db()
    assert banking.is_draft

    editing.version_promote_checked(version=banking, user=admin)

    banking.refresh_from_db()
    assert not banking.is_draft and banking.promoted_by == admin


def test_promotion_needs_every_intent_to_have_a_plan(banking, admin):
    edit(editing.outcome_updated, version=banking, skill="credit_check", mode=0, index=0, name="scored", outputs=())

    with pytest.raises(
        editing.EditRefused, match="Intent `apply_loan` has no plan: nothing can establish `credit_score`"
    ):
        editing.version_promote_checked(version=banking, user=admin)
    banking.refresh_from_db()
    assert banking.is_draft


def test_catalog_create_refuses_a_taken_slug(workspace, empty):
    assert spec_of(empty).title == "Shop assistant" and empty.number == 1

    with pytest.raises(SpecError, match="already a catalog named 'shop'"):
        catalog_create(workspace=workspace, slug="shop")


def test_tools_added_applies_the_reviewed_choice(banking):
    tools = parse_tools(
        [{"name": "notify", "parameters": {"emial": {"required": True}}}, {"name": "audit", "parameters": ["ssn"]}]
    )
    proposal = propose(tools, spec_of(banking))

    editing.version_edit(
        version=banking,
        change=lambda s: editing.tools_added(s, proposal=proposal, skills=["notify"], replace={"emial": "email"}),
    )

    spec = spec_of(banking)
    assert spec.skill("notify").modes[0].inputs == ("email",)
    assert "audit" not in {s.name for s in spec.skills} and "emial" not in {e.name for e in spec.elements}
    with pytest.raises(editing.EditRefused, match="choose at least one skill"):
        editing.tools_added(spec, proposal=proposal, skills=[])


def test_every_edit_keeps_the_spec_loadable(banking):
    """An edited draft exports and re-imports to the same spec (what the page's export offers)."""
    from orchestrator.engine.catalog.spec_io import dump_catalog

    spec = edit(editing.skill_added, version=banking, name="greet", outputs=("greeting",), failure=False)

    assert load_catalog(dump_catalog(spec, "yaml"), "yaml") == spec_of(banking)


def test_a_value_the_schema_refuses_is_reported_by_its_path_and_nothing_changes(banking):
    # The changes copy the spec's models without the schema (`model_copy`); the save reads back
    # what changed, and a fault names its place in the spec as an import would.
    before = spec_of(banking)
    where = [s.name for s in before.skills].index("credit_check")

    with pytest.raises(SpecError) as caught:
        edit(editing.skill_updated, version=banking, name="credit_check", max_retries=500, cost=-1)

    assert sorted(issue.path for issue in caught.value.issues) == [f"skills[{where}].cost",
                                                                    f"skills[{where}].max_retries"]
    assert spec_of(banking) == before


def test_a_saved_field_changes_that_field_alone(banking):
    before = spec_of(banking)

    edit(editing.skill_updated, version=banking, name="credit_check", description="Checks credit")

    after = spec_of(banking)
    assert after.skill("credit_check").description == "Checks credit"
    restored = after.skill("credit_check").model_copy(update={"description": before.skill("credit_check").description})
    assert after.model_copy(update={"skills": tuple(restored if s.name == "credit_check" else s
                                                    for s in after.skills)}) == before


def test_the_spec_kept_after_a_save_is_the_one_its_rows_read_back(banking, django_capture_on_commit_callbacks):
    from catalog_app.models import CatalogVersion
    from catalog_app.selectors import _assemble  # the rows read afresh, past the spec the save kept

    def blanks(spec):  # a blank question, label and mode name: stored blank, read back as none
        spec = editing.element_updated(spec, name="email", question="", label="")
        skill = spec.skill("credit_check")
        modes = (skill.modes[0].model_copy(update={"name": ""}), *skill.modes[1:])
        return spec.model_copy(update={"skills": tuple(s.model_copy(update={"modes": modes}) if s is skill else s
                                                       for s in spec.skills)})

    for change in (blanks, partial(editing.skill_updated, name="credit_check", description="Checks")):
        with django_capture_on_commit_callbacks(execute=True):
            editing.version_edit(version=banking, change=change)

        kept = spec_of(banking)
        assert kept == _assemble(CatalogVersion.objects.select_related("catalog").get(pk=banking.pk))
    assert kept.skill("credit_check").description == "Checks"
    assert kept.element("email").question is None
