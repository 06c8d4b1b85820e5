"""Recorded sequences judged against goals by the planner, on a task compiled from tool specs."""

from orchestrator.engine.analysis.sequence_goals import judge_goals
from orchestrator.engine.analysis.trajectories import Call, Sample, analyze_batch
from orchestrator.engine.analysis.trajectory_io import tool_catalog

TOOLS = tool_catalog([
    {"name": "SearchAirport", "query_parameters": {"query": {"required": True}},
     "output_parameters": {"skyId": {}, "entityId": {}}},
    {"name": "FlightSearch", "query_parameters": {"originSkyId": {"required": True},
                                                  "destinationSkyId": {"required": True}, "date": {"required": True}},
     "output_parameters": {"flightId": {}}},
    {"name": "SearchLocation", "query_parameters": {"query": {"required": True}}, "output_parameters": {"geoId": {}}},
    {"name": "SearchHotels", "query_parameters": {"geoId": {"required": True}}, "output_parameters": {"hotelId": {}}},
])

FLIGHT = [
    Call("SearchAirport", {"query": "New York"}, "var1"),
    Call("SearchAirport", {"query": "London"}, "var2"),
    Call("FlightSearch", {"originSkyId": "$var1.skyId$", "destinationSkyId": "$var2.skyId$", "date": "2024-08-15"},
         "var3"),
]


def test_two_searches_for_two_values_are_optimal_not_one_too_many():
    report = judge_goals(Sample((*FLIGHT, Call("var_result", {"flights": "$var3$"}))), TOOLS)
    assert report.sound and report.valid and report.optimal, report.summary


def test_a_call_the_answer_does_not_need_makes_the_sequence_not_optimal_with_the_alternative_as_a_diff():
    calls = (*FLIGHT, Call("SearchLocation", {"query": "London"}, "var4"), Call("var_result", {"flights": "$var3$"}))
    report = judge_goals(Sample(calls), TOOLS)
    assert report.valid and not report.optimal
    assert [line for line in report.diff if line.startswith("-")] == ["- geo_id = search_location(query)"]


def test_a_goal_the_calls_do_not_reach_is_not_valid():
    report = judge_goals(Sample(tuple(FLIGHT[:2]), goals=("FlightSearch",)), TOOLS)
    assert report.sound and not report.valid
    assert any(line.startswith("+ ") and "flight_search" in line for line in report.diff)


def test_a_step_whose_input_nothing_produced_is_not_sound():
    calls = (Call("SearchHotels", {"geoId": "$var9.geoId$"}, "var1"), Call("var_result", {"hotels": "$var1$"}))
    report = judge_goals(Sample(calls), TOOLS)
    assert not report.sound


def test_the_batch_counts_sound_valid_optimal_when_asked():
    batch = analyze_batch([Sample((*FLIGHT, Call("var_result", {"flights": "$var3$"})))], TOOLS, judge=judge_goals)
    assert batch.goals == {"sound": 1, "valid": 1, "optimal": 1}
    assert analyze_batch([Sample(tuple(FLIGHT))], TOOLS).goals == {}


def test_odd_sequences_are_judged_or_said_not_judged_never_a_crash():
    odd = [
        Sample(()),
        Sample((Call("Nothing", {"x": 1}, "var1"),)),
        Sample((Call("var_result", {"a": "$var7.x$"}),)),
        Sample((Call("SearchAirport", {"query": None}, ""), Call("SearchAirport", {"query": [1, {"q": "$$"}]}, ""))),
        Sample((Call("SearchHotels", {"geoId": "$var1.geoId"}, "var1"),), goals=("hotelId", "Unknown")),
    ]
    for sample in odd:
        report = judge_goals(sample, TOOLS)
        assert report.summary
