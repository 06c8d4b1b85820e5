"""The matcher behind trajectory repairs: words, abbreviations, descriptions, types."""

import pytest

from orchestrator.engine.analysis.matching import Candidate, abbreviates, assign, best, name_similarity, score, words


def test_names_split_into_words():
    assert words("originSkyId") == ("origin", "sky", "id")
    assert words("max_results") == ("max", "results")
    assert words("HTTPServerURL") == ("http", "server", "url")


@pytest.mark.parametrize(("short", "long"), [("dt", "date"), ("q", "query"), ("lang", "language"),
                                             ("ctry", "country"), ("qty", "quantity")])
def test_abbreviations(short, long):
    assert abbreviates(short, long) and not abbreviates(long, short)


def test_a_description_can_carry_a_match_the_name_cannot():
    query = Candidate("query", "Search query for location (e.g., city name)", "string")
    other = Candidate("limit", "Maximum number of results", "number")
    assert best("search", [other, query], "Rome")[0] is query


def test_types_break_a_tie_between_abbreviations():
    lng = Candidate("lng", "Longitude of the point", "number")
    language = Candidate("language", "Language code", "string")
    assert best("lang", [lng, language], "en")[0] is language
    assert score("lang", lng, "en") < score("lang", language, "en")


def test_nothing_alike_is_no_match():
    assert best("zebra", [Candidate("query"), Candidate("limit")]) is None
    assert name_similarity("", "query") == 0.0


def test_assignment_gives_each_candidate_once():
    assert assign([("a", "x", 0.9), ("b", "x", 0.8), ("b", "y", 0.6)]) == {"a": "x", "b": "y"}
