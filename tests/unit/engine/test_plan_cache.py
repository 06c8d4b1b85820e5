"""The plan cache: a (goal, state) seen before is answered without starting Fast Downward again."""

from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.lru import Lru
from orchestrator.engine.planning import planner as planner_module
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.planning.task import PlanningState

LOAN = Goal(known=("loan_status",))


def test_a_repeated_state_does_not_start_fast_downward_again(banking, monkeypatch):
    planner = Planner.for_spec(banking)
    searches = []
    real = planner_module.run_search

    def counting(sas, search):
        searches.append(sas)
        return real(sas, search)

    monkeypatch.setattr(planner_module, "run_search", counting)
    first = planner.plan(LOAN, PlanningState.of(known={"email"}))
    again = planner.plan(LOAN, PlanningState.of(known={"email"}))  # an equal state, built anew
    assert len(searches) == 1
    assert again == first
    planner.plan(LOAN, PlanningState.of(known={"email", "ssn"}))
    assert len(searches) == 2
    assert (planner.cache.hits, planner.cache.misses) == (1, 2)


def test_the_cached_plan_is_the_one_a_fresh_search_finds(banking):
    cached, fresh = Planner.for_spec(banking), Planner.for_spec(banking, cache_size=0)
    states = [PlanningState(), PlanningState.of(known={"email"}),
              PlanningState.of(cannot_establish={("ask", "ssn")}), PlanningState.of(known={"email"})]
    for state in states + states:
        assert cached.plan(LOAN, state) == fresh.plan(LOAN, state)
    assert fresh.cache.hits == 0 and cached.cache.hits == len(states) + 1


def test_the_cache_forgets_the_least_recently_used_state():
    cache: Lru[int] = Lru(size=2)
    cache.get_or_build("a", lambda: 1)
    cache.get_or_build("b", lambda: 2)
    cache.get_or_build("a", lambda: 99)  # a hit: "a" becomes the most recent
    cache.get_or_build("c", lambda: 3)  # "b" goes
    assert len(cache) == 2
    assert cache.get_or_build("b", lambda: 20) == 20
    assert cache.get_or_build("a", lambda: 99) == 99  # "a" went when "b" came back
