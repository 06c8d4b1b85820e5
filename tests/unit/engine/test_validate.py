"""The plan validator: NL2Flow's chain scenario in our terms, the banking catalog, repairs."""

import random

import pytest

from orchestrator.engine.analysis.plan_validation import validate_plan
from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.planning.task import PlanningState

from .flows import CHECK_BEFORE_CONSENT, chain_spec

RUN_D = Goal(done=("agent_d",))
LOAN = Goal(known=("loan_status",))
FULL = ["a_1 = agent_a()", "y = agent_b(a_1)", "agent_d(y)"]
MIDDLE = {"+ y = agent_b(a_1)", "+ y = agent_c(a_1)"}  # interchangeable: either repairs the gap


@pytest.fixture(scope="module")
def chain() -> Planner:
    return Planner.for_spec(chain_spec())


def diff(report) -> list[str]:
    return [str(line) for line in report.diff]


def test_the_full_plan_is_optimal(chain):
    report = validate_plan(chain, RUN_D, FULL, "optimal")
    assert (report.determination, report.sound, report.valid, report.optimal) == (True, True, True, True)
    assert (report.cost, report.optimal_cost) == (3, 3)
    assert report.fixed.lines == FULL
    assert diff(report) == [f"  {line}" for line in FULL]
    assert report.summary == "optimal: it costs 3, the least possible"


def test_a_plan_missing_the_middle_step_is_unsound_and_the_diff_adds_it(chain):
    report = validate_plan(chain, RUN_D, ["a_1 = agent_a()", "agent_d(y)"], "sound")
    assert report.determination is False and report.sound is False
    (failure,) = report.failures
    assert (failure.line, failure.step.line, failure.reasons) == (2, "agent_d(y)", ("y is not known yet",))
    lines = diff(report)
    assert lines[0] == "  a_1 = agent_a()" and lines[2] == "  agent_d(y)"
    assert lines[1] in MIDDLE
    assert report.edits == 1


def test_a_plan_ending_early_is_sound_but_not_valid(chain):
    early = ["a_1 = agent_a()", "y = agent_b(a_1)"]
    assert validate_plan(chain, RUN_D, early, "sound").determination is True
    report = validate_plan(chain, RUN_D, early, "valid")
    assert (report.determination, report.sound, report.valid) == (False, True, False)
    assert report.unreached == ("agent_d",)
    assert diff(report) == ["  a_1 = agent_a()", "  y = agent_b(a_1)", "+ agent_d(y)"]
    assert report.summary == "sound but not valid: at the end, the goal still lacks agent_d"


def test_asking_for_y_is_valid_but_not_optimal(chain):
    report = validate_plan(chain, RUN_D, ["ask(y)", "agent_d(y)"], "optimal")
    assert (report.sound, report.valid, report.optimal, report.determination) == (True, True, False, False)
    assert (report.cost, report.optimal_cost) == (6, 3)
    lines = diff(report)
    assert lines[0] == "- ask(y)" and lines[1] == "+ a_1 = agent_a()" and lines[2] in MIDDLE
    assert lines[3:] == ["  agent_d(y)"]
    assert report.fixed.cost == 3
    # Asked only whether it is valid, it is.
    assert validate_plan(chain, RUN_D, ["ask(y)", "agent_d(y)"], "valid").determination is True


def test_an_interchangeable_skill_is_just_as_optimal(chain):
    report = validate_plan(chain, RUN_D, ["a_1 = agent_a()", "y = agent_c(a_1)", "agent_d(y)"], "optimal")
    assert report.determination is True
    assert report.edits == 0


def test_the_optimal_repair_keeps_the_analysts_own_choices(chain):
    # agent_c was a fine choice; only the needless question goes.
    written = ["a_1 = agent_a()", "y = agent_c(a_1)", "ask(y)", "agent_d(y)"]
    report = validate_plan(chain, RUN_D, written, "optimal")
    assert report.determination is False
    assert diff(report) == ["  a_1 = agent_a()", "  y = agent_c(a_1)", "- ask(y)", "  agent_d(y)"]


def test_a_garbage_laden_plan_gives_warnings_and_a_diff(chain):
    messy = [
        "a_1 = agent_aa()",  # unknown skill
        "adsfaerafea",  # garbage
        "amap(a_1, a)",  # unknown operation
        "ask(a)",  # parses, but the user cannot be asked for an `a`
        "y = agent_c(a_1, a_1)",  # wrong number of inputs
        "a_1, y = agent_c(a_1)",  # wrong outputs
        "agent_d(y)",
    ]
    report = validate_plan(chain, RUN_D, messy, "sound")
    assert report.determination is False
    warnings = {w.number: w.warning for w in report.parsed.warnings}
    assert set(warnings) == {1, 2, 3, 5, 6}
    assert "did you mean 'agent_a'" in warnings[1]
    assert "agent_c takes 1 input (a), not 2" in warnings[5]
    assert [f.reasons for f in report.failures] == [("the user cannot be asked for a",), ("y is not known yet",)]
    lines = diff(report)
    assert {f"- {text}" for text in messy[:6]} <= set(lines)
    assert lines[-1] == "  agent_d(y)"
    assert "+ a_1 = agent_a()" in lines and MIDDLE & set(lines)
    assert report.fixed.cost == 3
    assert report.summary.endswith("; 5 lines ignored")


def test_the_credit_check_before_consent_is_unsound(banking_planner):
    report = validate_plan(banking_planner, LOAN, CHECK_BEFORE_CONSENT, "sound")
    assert report.determination is False
    first = report.failures[0]
    assert first.line == 2
    assert first.reasons == ("the user has not agreed to share sensitive values with credit_check",)
    lines = diff(report)
    assert lines.index("+ authorize(credit_check)") == lines.index("  credit_score = credit_check(ssn)") - 1
    assert report.edits == 1
    # Moved where it belongs, the same plan is optimal.
    fixed = [CHECK_BEFORE_CONSENT[0], CHECK_BEFORE_CONSENT[2], CHECK_BEFORE_CONSENT[1], *CHECK_BEFORE_CONSENT[3:]]
    assert validate_plan(banking_planner, LOAN, fixed, "optimal").determination is True


def test_values_known_at_the_start_count(chain):
    report = validate_plan(chain, RUN_D, ["agent_d(y)"], "optimal", PlanningState.of(known={"y"}))
    assert report.determination is True and report.optimal_cost == 1


def test_a_step_nothing_can_make_runnable_is_removed_by_the_sound_repair(chain):
    report = validate_plan(chain, RUN_D, ["ask(a)", "a_1 = agent_a()"], "sound")
    assert diff(report) == ["- ask(a)", "  a_1 = agent_a()"]


def test_a_goal_nothing_can_reach_has_no_fix_and_says_why(chain):
    state = PlanningState.of(pruned={("agent_d-m1-ok", ("y",))})  # agent_d was found not to work
    report = validate_plan(chain, RUN_D, FULL, "valid", state)
    assert report.determination is False and report.fixed is None
    assert report.unsolvable.startswith("no plan reaches the goal")
    (reason,) = report.failures[0].reasons
    assert reason == "agent_d-m1-ok may no longer be used here (it failed too often or was rejected)"


def test_per_element_consent_for_a_value_that_needs_none_cannot_run(banking):
    planner = Planner.for_spec(banking.model_copy(update={"privacy": "per_element"}))
    report = validate_plan(planner, Goal(known=("email",)), ["authorize(email)", "ask(email)"], "sound")
    assert report.failures[0].reasons == ("email is not sensitive, so there is nothing to authorize",)
    assert [str(line) for line in report.diff] == ["- authorize(email)", "  ask(email)"]


def test_an_empty_plan_is_its_own_verdict_never_sound_and_the_fix_is_the_planners_plan(chain):
    report = validate_plan(chain, RUN_D, "", "valid")
    assert report.empty and not report.sound and not report.valid
    assert report.summary == "no plan to judge: the text is empty"
    assert report.fixed.cost == 3 and report.edits == 3


def test_a_plan_whose_every_line_is_ignored_is_no_plan_with_cost_zero_sound(chain):
    report = validate_plan(chain, RUN_D, ["then call the manager", "map(x, y)"], "sound")
    assert report.empty and not report.sound and not report.determination
    assert report.summary.startswith("no plan to judge: none of the 2 lines is a step (line 1: ")
    assert report.to_data()["empty"] is True
    assert report.fixed.lines == FULL


def test_an_unknown_quality_or_goal_is_a_user_error(chain):
    with pytest.raises(ConcertoError, match="unknown plan quality 'best'"):
        validate_plan(chain, RUN_D, FULL, "best")
    with pytest.raises(ConcertoError, match="unknown skill 'agent_z'"):
        validate_plan(chain, Goal(done=("agent_z",)), FULL)


def _random_plan(rng, spec) -> list[str]:
    """Lines from the catalog's own words, right and wrong: some parse, some run, most do neither."""
    elements = [e.name for e in spec.elements] + ["nonsense"]
    skills = [s.name for s in spec.skills]
    lines = []
    for _ in range(rng.randint(0, 9)):
        kind = rng.random()
        if kind < 0.25:
            lines.append(f"ask({rng.choice(elements)})")
        elif kind < 0.35:
            lines.append(f"authorize({rng.choice(skills)})")
        elif kind < 0.9:
            args = ", ".join(rng.sample(elements, k=rng.randint(0, 3)))
            outs = ", ".join(rng.sample(elements, k=rng.randint(0, 3)))
            lines.append(f"{outs + ' = ' if outs else ''}{rng.choice(skills)}({args})")
        else:
            lines.append(rng.choice(["", "garbage", "f(", "= x()", "ask()", "a, = b(c)"]))
    return lines


@pytest.mark.parametrize("seed", range(8))
def test_every_repair_has_the_quality_asked_for(banking, banking_planner, seed):
    rng = random.Random(seed)
    verdicts = []
    for _ in range(4):
        lines = _random_plan(rng, banking)
        intent = rng.choice(banking.intents)
        for quality in ("sound", "valid", "optimal"):
            report = validate_plan(banking_planner, intent.goal, lines, quality)
            verdicts.append(report.determination)
            again = validate_plan(banking_planner, intent.goal, report.fixed.lines, quality)
            assert again.determination, (lines, quality, report.fixed.lines, again.summary)
            assert not again.parsed.warnings
            # The diff turns the lines as read into the fixed plan.
            assert [d.text for d in report.diff if d.op != "+"] == [line.rendered for line in report.parsed.lines]
            assert [d.text for d in report.diff if d.op != "-"] == report.fixed.lines
    assert not all(verdicts)  # the random plans did need repairs
