"""Questions built from element descriptions read as direct questions, whatever the analyst wrote."""

from __future__ import annotations

import pytest

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.runtime.replies import Wording


@pytest.mark.parametrize(("description", "question"), [
    ("where you want to go", "Where do you want to go?"),
    ("when you are leaving", "When are you leaving?"),
    ("how many bags you need", "How many bags do you need?"),
    ("which seat you prefer", "Which seat do you prefer?"),
    ("what the problem is", "What is the problem?"),
    ("what went wrong", "What went wrong?"),
    ("Size of the pizza", "What is the size of the pizza?"),
    ("your email address", "What is your email address?"),
])
def test_a_description_becomes_a_direct_question(description, question):
    spec = CatalogSpec.model_validate({"catalog": "t", "elements": [{"name": "x", "description": description}]})
    assert Wording(spec).question("x") == question
