"""Spelling repair rewrites misspelt words only: an English word the catalog does not use stays as written."""

from __future__ import annotations

import numpy as np
import pytest

from orchestrator.engine.runtime.semantic import SemanticClassifier
from orchestrator.engine.runtime.spelling import SpellingRepair, english_words

# A catalog vocabulary with near neighbours of everyday words (Banking77's "last" -> "least", ...).
VOCABULARY = {"least", "send", "apple", "salaries", "salary", "report", "password", "loan", "reset", "card"}


@pytest.mark.parametrize(
    "text",
    ["last", "second", "apply", "a pie chart of sales by region", "lone", "my last payment"],
)
def test_english_words_are_never_rewritten(text):
    assert SpellingRepair(VOCABULARY)(text) == text


@pytest.mark.parametrize(("text", "repaired"), [("passwrd", "password"), ("reset my pasword", "reset my password"),
                                                 ("a personal loaan", "a personal loan")])
def test_misspelt_words_are_repaired_towards_the_catalog(text, repaired):
    assert SpellingRepair(VOCABULARY)(text) == repaired


def test_codes_and_numbers_are_not_spelling_mistakes():
    assert SpellingRepair(VOCABULARY | {"ref123"})("ref124 cc-10423") == "ref124 cc-10423"


def test_the_word_list_is_a_real_english_dictionary():
    words = english_words()
    assert len(words) > 100_000
    assert all(word in words for word in ("last", "second", "apply", "sales", "lone"))
    assert "passwrd" not in words


def test_a_chart_of_sales_is_not_read_as_salaries():
    """The issue's case: "sales" became "salaries" and started a salary report."""
    classifier = SemanticClassifier(embedder=lambda texts: np.ones((len(texts), 2), np.float32))
    classifier.fit({"salary_report": ["publish the salaries report"]})
    assert classifier.repair("a pie chart of sales by region") == "a pie chart of sales by region"
