"""Trajectory analysis: error tags, repairs, compression, batch statistics and the file layouts."""

import json

import pytest

from orchestrator.engine.analysis.trajectories import Call, ErrorType, Sample, analyze_batch, analyze_sequence
from orchestrator.engine.analysis.trajectory_io import (
    DataError,
    load_samples,
    report_to_data,
    tool_catalog,
    tools_from_catalog,
)

TOOLS = [  # NESTFUL's layout: query_parameters with `required`, output_parameters
    {"name": "SearchAirport", "query_parameters": {"query": {"type": "string", "required": True}},
     "output_parameters": {"skyId": {"type": "string"}, "entityId": {"type": "string"},
                           "presentation": {"type": "object", "properties": {"title": {"type": "string"}}}}},
    {"name": "FlightSearch",
     "query_parameters": {"originSkyId": {"required": True}, "originEntityId": {"required": True},
                          "date": {"required": True}, "returnDate": {"required": False}},
     "output_parameters": {"flightId": {"type": "string"}}},
    {"name": "SearchLocation", "query_parameters": {"query": {"required": True}},
     "output_parameters": {"geoId": {"type": "string"}}},
    {"name": "SearchHotels", "query_parameters": {"geoId": {"required": True}, "checkIn": {"required": True}},
     "output_parameters": {"hotelId": {"type": "string"}}},
    {"name": "ArtistOverview", "query_parameters": {"artistId": {"required": True}},
     "output_parameters": {"albums": {"type": "array"}}},
]


@pytest.fixture(scope="module")
def tools():
    return tool_catalog(TOOLS)


def call(_tool, _label="", **arguments):
    return Call(_tool, arguments, _label)


def analyse(tools, calls, memory=None, goals=()):
    return analyze_sequence(Sample(tuple(calls), memory or {}, tuple(goals)), tools)


def kinds(report):
    return [(tag.call, tag.kind) for tag in report.errors]


def test_a_correct_sequence_passes_untouched(tools):
    calls = [call("SearchLocation", "var1", query="Rome"),
             call("SearchHotels", "var2", geoId="$var1.geoId$", checkIn="2024-10-05"),
             call("var_result", hotels="$var2$")]
    report = analyse(tools, calls)
    assert report.passed and not report.errors
    assert report.repaired == report.compressed == tuple(calls)
    assert all(line.startswith("  ") for line in report.compress_diff)


def test_a_thrashing_sequence_is_compressed_to_one_correct_call(tools):
    calls = [
        call("SearchAirport", "var1", query="New York"),
        call("FlightSearch", "var2", originSkyId="$var1.skyId$"),  # no date: nothing can supply one
        call("SearchAirport", "var3", query="New York"),  # the same search again, to support a retry
        call("FlightSearch", "var4", originSkyId="$var3.skyid$", date="2024-12-01"),  # misspelt field
        call("SearchAirport", "var5", query="New York"),
        call("FlightSearch", "var6", originSkyId="$var5.skyId$", originEntityId="$var5.entityId$",
             date="2024-12-01"),
    ]
    report = analyse(tools, calls)
    assert not report.passed
    assert [c.line for c in report.compressed] == [
        'var1 = SearchAirport(query="New York")',
        'var4 = FlightSearch(originSkyId="$var1.skyId$", date="2024-12-01", originEntityId="$var1.entityId$")',
    ]
    assert report.tool_calls == 6 and report.compressed_calls == 2
    assert '- var6 = FlightSearch(originSkyId="$var5.skyId$", originEntityId="$var5.entityId$", date="2024-12-01")' \
        in report.compress_diff


def test_a_wrong_reference_is_pointed_at_the_call_that_produces_the_field(tools):
    calls = [call("SearchAirport", "var3", query="London"),
             call("SearchLocation", "var4", query="London"),
             call("SearchHotels", "var5", geoId="$var3.ID$", checkIn="2024-08-15")]
    report = analyse(tools, calls)
    assert kinds(report) == [(2, ErrorType.WRONG_ASSIGNMENT)]
    assert report.errors[0].detail == "geoId=$var3.ID$"
    assert report.repaired[2].arguments == {"geoId": "$var4.geoId$", "checkIn": "2024-08-15"}
    assert report.repair_diff[-2:] == (
        '- var5 = SearchHotels(geoId="$var3.ID$", checkIn="2024-08-15")',
        '+ var5 = SearchHotels(geoId="$var4.geoId$", checkIn="2024-08-15")',
    )
    assert not report.repaired_errors


def test_a_reference_into_memory_is_repaired_by_the_parameter_it_fills(tools):
    memory = {"var1": {"artist_id": 12345}}
    report = analyse(tools, [call("ArtistOverview", "var2", artistId="$var1.id$")], memory)
    assert kinds(report) == [(0, ErrorType.WRONG_ASSIGNMENT)]
    assert report.repaired[0].arguments == {"artistId": "$var1.artist_id$"}


def test_a_made_up_tool_is_tagged_and_taken_for_the_real_one_it_resembles(tools):
    calls = [call("SearchLocation", "var1", query="Paris"),
             call("Search_Hotels", "var2", geo_id="$var1.geoId$", checkIn="2024-10-05"),
             call("NLP.extract_topics", "var3", text="$var2.hotelId$")]
    report = analyse(tools, calls)
    # The made-up tool produced nothing, so what the next call takes from it is missing too.
    assert kinds(report) == [(1, ErrorType.MADE_UP_TOOL), (2, ErrorType.MADE_UP_TOOL), (2, ErrorType.MISSING_MEMORY)]
    assert [c.line for c in report.repaired] == [
        'var1 = SearchLocation(query="Paris")',
        'var2 = SearchHotels(geoId="$var1.geoId$", checkIn="2024-10-05")',
    ]
    assert [str(tag) for tag in report.repaired_errors] == [
        "sequence: made up tool: call 3 (NLP.extract_topics) resembles no tool and was removed"]


def test_made_up_and_missing_parameters(tools):
    calls = [call("SearchLocation", "var1", query="Paris", lang="fr"),
             call("SearchHotels", "var2", geo_Id="$var1.geoId$")]
    report = analyse(tools, calls, memory={"checkIn": "2024-10-05"})
    assert kinds(report) == [(0, ErrorType.MADE_UP_PARAMETER), (1, ErrorType.MADE_UP_PARAMETER),
                             (1, ErrorType.MISSING_PARAMETER), (1, ErrorType.MISSING_PARAMETER)]
    assert report.repaired[0].arguments == {"query": "Paris"}  # nothing resembles `lang`: dropped
    assert report.repaired[1].arguments == {"geoId": "$var1.geoId$", "checkIn": "$checkIn$"}  # from memory
    assert not report.repaired_errors


def test_references_to_missing_memory(tools):
    calls = [call("SearchHotels", "var2", geoId="$var9.geoId$", checkIn="$when$"),
             call("SearchLocation", "var1", query="Paris")]
    report = analyse(tools, calls)
    assert kinds(report) == [(0, ErrorType.MISSING_MEMORY), (0, ErrorType.MISSING_MEMORY)]
    # Only an earlier result can be used: the location comes after, so the repair cannot help.
    assert report.repaired_errors
    assert [c.name for c in report.compressed] == ["SearchLocation"]


def test_nested_output_fields_and_the_closing_var_result(tools):
    calls = [call("SearchAirport", "var1", query="Oslo"),
             call("var_result", title="$var1.presentation.title$", everything="$var1$")]
    assert analyse(tools, calls).passed


def test_goals_that_the_sequence_does_not_reach(tools):
    calls = [call("SearchLocation", "var1", query="Paris")]
    assert analyse(tools, calls, goals=["geoId"]).passed
    report = analyse(tools, calls, goals=["SearchHotels", "hotelId"])
    assert [str(tag) for tag in report.errors] == ["sequence: goal not met: SearchHotels is never called",
                                                   "sequence: goal not met: hotelId is never obtained"]


def test_batch_statistics_over_a_batch_we_build(tools):
    good = [call("SearchLocation", "var1", query="Rome"),
            call("SearchHotels", "var2", geoId="$var1.geoId$", checkIn="2024-10-05")]
    repeated = [*good, call("SearchLocation", "var3", query="Rome")]  # one call too many
    made_up = [call("SearchLocatoin", "var1", query="Rome"), call("Weather", "var2", city="Rome")]
    wrong = [call("SearchLocation", "var1", query="Rome"),
             call("SearchHotels", "var2", geoId="$var1.id$", checkIn="2024-10-05")]
    samples = [Sample(tuple(calls)) for calls in (good, repeated, made_up, wrong, good)]
    seen = []
    report = analyze_batch(samples, tools, on_progress=lambda done, total: seen.append((done, total)))
    assert (report.count, report.passed, report.pass_rate) == (5, 3, 0.6)
    assert report.troubled == (2, 3)
    assert report.failures_per_tool == {"SearchLocatoin": 1, "Weather": 1, "SearchHotels": 1}
    assert report.errors_per_type == {"made_up_tool": 2, "wrong_assignment": 1}
    # 11 tool calls; compression drops the repeat and the unknown `Weather`.
    assert (report.calls, report.compressed_calls) == (11, 9)
    assert report.compression_rate == pytest.approx(2 / 11)
    assert report.repaired == 4  # all but the one with `Weather`, which resembles no tool
    assert seen == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]
    assert report.mean_ms > 0
    data = report_to_data(report)
    assert json.loads(json.dumps(data))["sequences"][2]["errors"][0]["kind"] == "made_up_tool"


def test_nestful_samples_are_read_as_they_are():
    # As in NESTFUL's release: `output` stored as a JSON string, tools carried by the sample.
    sample = {
        "sample_id": "nf-17",
        "input": "Find hotels in London",
        "output": json.dumps([{"name": "SearchLocation", "arguments": {"query": "London"}, "label": "var1"},
                              {"name": "SearchHotels", "arguments": {"geoId": "$var1.geoId$", "checkIn": "x"},
                               "label": "var2"}]),
        "tools": json.dumps(TOOLS),
        "gold_answer": "ignored",
    }
    (read,) = load_samples([sample])
    assert read.ident == "nf-17" and len(read.tools) == 5
    assert analyze_batch([read]).passed == 1


def test_openai_function_tools_and_calls():
    tools = tool_catalog([{"type": "function", "function": {
        "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {}, "unit": {}},
                                              "required": ["city"]}}}])
    (sample,) = load_samples([{"function": {"name": "get_weather", "arguments": '{"unit": "C"}'}}])
    report = analyze_sequence(sample, tools)
    assert [(t.kind, t.detail) for t in report.errors] == [(ErrorType.MISSING_PARAMETER, "get_weather needs 'city'")]


def test_catalog_skills_become_tools_one_signature_per_mode(banking):
    tools = tools_from_catalog(banking)
    lookup = tools.get("lookup_customer")
    assert {p.name for p in lookup.params} == {"email", "account_number"}
    assert lookup.missing(["account_number"]) == [] and lookup.missing([]) == ["email"]
    assert tools.get("ocr_document").param_for("passport") == "document"  # a subtype fits
    calls = [call("lookup_customer", "var1", account_number="12345678"),
             call("submit_loan", "var2", name="$var1.name$", income="$var1.income$", credit_score="$var1.score$",
                  loan_amount=5000)]
    report = analyse(tools, calls)
    assert kinds(report) == [(1, ErrorType.WRONG_ASSIGNMENT)]


@pytest.mark.parametrize(
    ("data", "path", "message"),
    [
        ({"samples": 3}, "samples.samples", "expected a list of samples"),
        ([{"input": "x"}], "samples[0]", "needs its calls under 'output'"),
        ([{"output": [{"arguments": {}}]}], "samples[0].output[0].name", "needs the name of a tool"),
        ([{"output": [{"name": "f", "arguments": [1]}]}], "samples[0].output[0].arguments", "must be an object"),
        ([{"output": "[not json"}], "samples[0].output", "not JSON"),
        ([{"output": [], "tools": [{"description": "no name"}]}], "samples[0].tools[0].name", "needs a 'name'"),
    ],
)
def test_bad_data_is_one_error_naming_where(data, path, message):
    with pytest.raises(DataError, match=message) as caught:
        load_samples(data)
    assert caught.value.path == path


def test_a_tool_specified_twice_keeps_its_first_spec_with_a_warning():
    tools = tool_catalog([{"name": "f", "parameters": {"a": {}}}, {"name": "f", "parameters": {"b": {}}}])
    assert [p.name for p in tools.get("f").params] == ["a"]
    assert tools.warnings == ("tools[1]: tool 'f' is specified twice; the first spec is kept",)


def test_a_spec_that_marks_no_parameter_required_requires_none():
    # JSON Schema's reading, as NESTFUL's specs follow it: optional unless listed or flagged.
    tools = tool_catalog([{"name": "LocalBusinessData",
                         "query_parameters": {"query": {"type": "string"}, "lat": {"type": "number"}}}])
    assert analyse(tools, [call("LocalBusinessData", "var1", query="pizza")]).passed


def test_inputs_listed_under_arguments_are_read():
    # The original SGD-derived NESTFUL specs list inputs under `arguments`.
    tools = tool_catalog([{"name": "Buses.FindBus", "arguments": {"origin": {"required": True}, "to": {}},
                         "output_parameters": {"price": {}}}])
    report = analyse(tools, [call("Buses.FindBus", "var1", origin="LA", to="SF")])
    assert report.passed and not tools.warnings


def test_parameters_under_a_key_nobody_reads_are_warned_about():
    tools = tool_catalog([{"name": "f", "inputs": {"city": {}}}])
    assert tools.warnings and "'inputs' not read" in tools.warnings[0]


def test_a_list_of_openapi_documents_is_one_catalog():
    def document(name):
        return {"openapi": "3.0.2", "paths": {f"/{name}": {"get": {
            "operationId": name, "parameters": [{"name": "q", "in": "query", "required": True}],
            "responses": {"200": {"content": {"application/json": {"schema": {
                "type": "object", "properties": {"id": {"type": "string"}}}}}}}}}}}

    tools = tool_catalog([document("A"), document("B"), document("A")])
    assert sorted(tools.tools) == ["A", "B"] and len(tools.warnings) == 1


NESTED = [{"name": "Books", "query_parameters": {"keyword": {"required": True}},
           "output_parameters": {"author": {"type": "array", "items": {"type": "object", "properties": {
               "id": {"type": "string"}, "name": {"type": "string"}}}},
               "location": {"type": "object", "properties": {"locationId": {}}}, "raw": {"type": "object"}}},
          {"name": "ByAuthor", "query_parameters": {"authorID": {"required": True}}}]


@pytest.mark.parametrize("reference", ["$var1.author[0].id$", "$var1.location.locationId$", "$var1.author[0]$",
                                        "$var1.raw.anything.below$", "Books by $var1.author[0].name$"])
def test_indexes_and_nested_paths_are_references_the_outputs_have(reference):
    tools = tool_catalog(NESTED)
    calls = [call("Books", "var1", keyword="x"), call("ByAuthor", "var2", authorID=reference)]
    assert analyse(tools, calls).passed


@pytest.mark.parametrize("reference", ["$var1.location.geoId$", "$var1.locationId$", "$var1.authors[0].id$"])
def test_a_nested_field_the_output_lacks_is_a_wrong_assignment(reference):
    tools = tool_catalog(NESTED)
    calls = [call("Books", "var1", keyword="x"), call("ByAuthor", "var2", authorID=reference)]
    assert kinds(analyse(tools, calls)) == [(1, ErrorType.WRONG_ASSIGNMENT)]


def test_a_field_reached_without_its_parent_is_repaired_to_the_full_path():
    tools = tool_catalog(NESTED)
    calls = [call("Books", "var1", keyword="x"), call("ByAuthor", "var2", authorID="$var1.locationId$")]
    assert analyse(tools, calls).repaired[1].arguments == {"authorID": "$var1.location.locationId$"}


@pytest.mark.parametrize("text", ["$100-$200", "$500", "costs $5 or $AMOUNT", "$$"])
def test_dollar_signs_in_literal_text_are_not_references(tools, text):
    assert analyse(tools, [call("SearchLocation", "var1", query=text)]).passed


def test_a_reference_without_its_closing_dollar_is_flagged_and_closed(tools):
    calls = [call("SearchLocation", "var1", query="Rome"),
             call("SearchHotels", "var2", geoId="$var1.geoId", checkIn="2024-10-05")]
    report = analyse(tools, calls)
    assert kinds(report) == [(1, ErrorType.MALFORMED_REFERENCE)]
    assert report.repaired[1].arguments["geoId"] == "$var1.geoId$" and not report.repaired_errors


def test_openapi_operations_are_tools_as_the_studio_imports_them():
    document = {
        "openapi": "3.0.0",
        "paths": {"/customers/{email}": {"get": {
            "operationId": "getCustomer",
            "parameters": [{"name": "email", "in": "path", "schema": {"type": "string"}}],
            "responses": {"200": {"content": {"application/json": {"schema": {
                "type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}}}}},
        }}},
    }
    tools = tool_catalog(document)
    calls = [call("getCustomer", "var1", email="ada@example.com"), call("var_result", who="$var1.nmae$")]
    report = analyse(tools, calls)
    assert [(t.kind, t.detail) for t in report.errors] == [(ErrorType.WRONG_ASSIGNMENT, "who=$var1.nmae$")]
    assert report.repaired[1].arguments == {"who": "$var1.name$"}


@pytest.mark.parametrize(
    "arguments",
    [{"q": None}, {"q": [1, [2, {"x": "$var1.a$"}]]}, {"q": {"deep": {"er": "$$"}}}, {"q": "$"}, {"q": "$.$"},
     {"q": "$var1$ and $var2.b.c$"}, {"": ""}, {"q": 10**30}, {"q": float("nan")}, {"q": "é $ünï.côdé$"}],
)
def test_odd_argument_values_never_break_the_analysis(tools, arguments):
    calls = [call("SearchLocation", "var1", **arguments), call("var_result", **arguments), Call("💥", arguments)]
    report = analyze_batch([Sample(tuple(calls))], tools)
    assert report.count == 1 and report.sequences[0].repair_diff


RENAMES = [
    {"name": "get_word_definition", "description": "Get the definition of a word",
     "query_parameters": {"word": {"type": "string", "required": True, "description": "The word to define"}},
     "output_parameters": {"definition": {"type": "string"}}},
    {"name": "analyze_sentiment", "description": "Analyze the sentiment of a given text",
     "query_parameters": {"text": {"type": "string", "required": True, "description": "The text to be analyzed"}},
     "output_parameters": {"sentiment": {"type": "string"}}},
    {"name": "create_todo", "description": "Create a new todo item",
     "query_parameters": {"title": {"type": "string", "required": True, "description": "The title of the todo"},
                          "due_date": {"type": "string", "description": "The due date"}},
     "output_parameters": {"todo_id": {"type": "string"}}},
    {"name": "get_weather", "description": "Weather for a day",
     "query_parameters": {"city": {"type": "string", "required": True},
                          "date": {"type": "string", "required": True, "description": "Date, YYYY-MM-DD"},
                          "lng": {"type": "number", "description": "Longitude"},
                          "language": {"type": "string", "description": "Language code"}}},
    {"name": "SearchRestaurants", "query_parameters": {"locationId": {"type": "string", "required": True,
                                                                      "description": "the geoId of the location"}},
     "output_parameters": {"restaurants": {"type": "array"}}},
    {"name": "SearchLocation", "query_parameters": {"query": {"type": "string", "required": True}},
     "output_parameters": {"geoId": {"type": "string"}}},
]


@pytest.fixture(scope="module")
def renames():
    return tool_catalog(RENAMES)


@pytest.mark.parametrize(("written", "meant", "value"), [
    ("dt", "date", "2024-10-05"), ("day", "date", "2024-10-05"), ("lang", "language", "en"), ("town", "city", "Rome"),
])
def test_a_parameter_renamed_beyond_spelling_keeps_its_value(renames, written, meant, value):
    arguments = {"city": "Rome", "date": "2024-10-05", "language": "en"}
    arguments[written] = arguments.pop(meant)
    report = analyse(renames, [Call("get_weather", arguments, "var1")])
    assert report.repaired[0].arguments[meant] == value and not report.repaired_errors


def test_a_stray_argument_fills_the_one_required_parameter_left_empty(renames):
    report = analyse(renames, [call("analyze_sentiment", "var1", word="happy")])
    assert report.repaired[0].arguments == {"text": "happy"}


def test_a_stray_reference_goes_where_its_field_says(renames):
    calls = [call("SearchLocation", "var1", query="Rome"), call("SearchRestaurants", "var2", geoId="$var1.geoId$")]
    assert analyse(renames, calls).repaired[1].arguments == {"locationId": "$var1.geoId$"}


def test_a_renamed_tool_is_taken_for_the_one_its_arguments_fit(renames):
    calls = [call("create_task", "var1", title="Read", due_date="2024-10-01"), call("var_result", todo="$var1$")]
    report = analyse(renames, calls)
    assert [c.name for c in report.repaired] == ["create_todo", "var_result"] and not report.repaired_errors


def test_a_required_value_the_request_states_is_filled_in(renames):
    sample = Sample((call("get_weather", "var1", city="Rome"),), request="Weather in Rome on 2024-10-05, please")
    assert analyze_sequence(sample, renames).repaired[0].arguments == {"city": "Rome", "date": "2024-10-05"}


def test_a_sequence_without_errors_is_never_rewritten(renames):
    # `query` matches `geoId`'s producer nowhere, yet nothing here is an error: leave it be.
    calls = [call("SearchLocation", "var1", query="Rome"), call("SearchRestaurants", "var2", locationId="Rome")]
    report = analyse(renames, calls)
    assert report.passed and report.repaired == tuple(calls)


def test_compression_drops_answers_that_refer_to_removed_calls(renames):
    calls = [call("SearchLocation", "var1", query="Rome"), call("Nothing_like_it", "var2", zz=1),
             call("var_result", place="$var1$", other="$var2.x$")]
    report = analyse(renames, calls)
    assert report.compressed[-1].arguments == {"place": "$var1$"}


def test_calls_passing_arguments_to_a_tool_that_declares_none_are_warned_about():
    tools = tool_catalog([{"name": "Buses.FindBus", "inputs": [{"name": "origin"}]}])
    report = analyze_batch([Sample((call("Buses.FindBus", "var1", origin="LA"),))], tools)
    assert any("declares no parameters, yet 1 call passes" in w for w in report.warnings)


def test_a_label_written_twice_is_taken_for_the_one_the_answer_misses(tools):
    calls = [call("SearchLocation", "var1", query="Rome"),
             call("SearchHotels", "var2", geoId="$var1.geoId$", checkIn="2024-10-05"),
             call("SearchHotels", "var2", geoId="$var1.geoId$", checkIn="2024-10-06"),
             call("var_result", first="$var2$", second="$var3$")]
    report = analyse(tools, calls)
    assert kinds(report) == [(3, ErrorType.MISSING_MEMORY)]
    assert [c.label for c in report.repaired] == ["var1", "var2", "var3", ""] and not report.repaired_errors


def test_a_misspelt_field_under_an_index_keeps_the_index():
    tools = tool_catalog(NESTED)
    calls = [call("Books", "var1", keyword="x"), call("ByAuthor", "var2", authorID="$var1.author[0].idd$")]
    assert analyse(tools, calls).repaired[1].arguments == {"authorID": "$var1.author[0].id$"}


def test_a_dropped_reference_comes_back_as_the_sequence_passes_it_elsewhere(tools):
    # Both results have a `geoId`; the other hotel search took it from var1, so this one does too.
    two = tool_catalog([*TOOLS[:4], {"name": "Nearby", "query_parameters": {"geoId": {"required": True}},
                                   "output_parameters": {"geoId": {}}}])
    calls = [call("SearchLocation", "var1", query="Rome"),
             call("SearchHotels", "var2", geoId="$var1.geoId$", checkIn="2024-10-05"),
             call("Nearby", "var3", geoId="$var1.geoId$"),
             call("SearchHotels", "var4", checkIn="2024-10-06")]
    assert analyse(two, calls).repaired[3].arguments["geoId"] == "$var1.geoId$"


def test_a_dropped_argument_is_filled_from_a_field_one_level_down():
    tools = tool_catalog([{"name": "Sheet", "query_parameters": {"ticker": {"required": True}},
                         "output_parameters": {"company": {"type": "object", "properties": {"cik": {}}}}},
                        {"name": "Filings", "query_parameters": {"cik": {"required": True}}}])
    calls = [call("Sheet", "var1", ticker="IBM"), call("Filings", "var2")]
    assert analyse(tools, calls).repaired[1].arguments == {"cik": "$var1.company.cik$"}


@pytest.mark.parametrize("label", ["$var1", "$var1$"])
def test_a_label_written_as_a_reference_is_flagged_and_written_as_a_label(tools, label):
    """Not missing memory, and never "repaired" into `$$var1.geoId$`: the label is the mistake."""
    calls = [call("SearchLocation", label, query="Rome"),
             call("SearchHotels", "var2", geoId="$var1.geoId$", checkIn="2024-10-05")]
    report = analyse(tools, calls)
    assert kinds(report) == [(0, ErrorType.MALFORMED_LABEL)]
    assert report.repaired[0].label == "var1"
    assert report.repaired[1].arguments["geoId"] == "$var1.geoId$" and not report.repaired_errors
