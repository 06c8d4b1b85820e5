"""Each catalog's own thresholds: fitted on its phrases and the shipped out-of-scope requests, refit when
it changes, never starting below the refusal line, and every decision's reason in words."""

from __future__ import annotations

import numpy as np
import pytest

from orchestrator.engine.runtime import calibration
from orchestrator.engine.runtime.calibration import Calibration, out_of_scope_phrases
from orchestrator.engine.runtime.intents import IntentMatcher
from orchestrator.engine.runtime.nlu import TfidfClassifier
from orchestrator.engine.runtime.semantic import SemanticClassifier


def test_the_project_ships_a_few_hundred_varied_out_of_scope_requests():
    phrases = out_of_scope_phrases()
    assert len(phrases) >= 250 and len(set(phrases)) == len(phrases)
    assert "tell me a joke" in phrases and "give me a recipe for banana bread" in phrases


@pytest.mark.parametrize("name", ["banking", "helpdesk", "travel", "insurance"])
def test_every_catalog_gets_thresholds_fitted_on_its_own_phrases(request, name):
    matcher = IntentMatcher(request.getfixturevalue(name), SemanticClassifier())
    c = matcher.calibration
    assert c.basis.startswith("fitted on ")
    assert 0.15 <= c.floor <= c.sure <= 0.85  # never start below the refusal line
    assert 0.0 <= c.margin <= 0.32


def test_catalogs_get_different_thresholds(banking, helpdesk, travel):
    fitted = {IntentMatcher(spec, SemanticClassifier()).calibration for spec in (banking, helpdesk, travel)}
    assert len({(c.floor, c.sure, c.margin) for c in fitted}) == 3  # three fixed constants no longer


def test_the_thresholds_are_refit_when_the_catalog_changes(banking):
    before = IntentMatcher(banking).calibration
    intents = [i.model_copy(update={"examples": [*i.examples, f"{i.name.replace('_', ' ')} now please",
                                                 f"I would like to {i.name.replace('_', ' ')}"]})
               for i in banking.intents]
    after = IntentMatcher(banking.model_copy(update={"intents": intents})).calibration
    assert after.basis != before.basis  # more phrases left out in turn


def test_an_out_of_scope_request_is_refused_with_its_reason(banking):
    decision = IntentMatcher(banking).decide("what's the capital of australia")
    assert decision.kind == "none" and decision.reason.startswith("nothing close: the closest phrase scores")


def test_a_close_call_says_what_it_is_too_close_to(banking):
    decision = IntentMatcher(banking).decide("I have a question about my card")
    assert decision.kind == "ambiguous"
    other = decision.alternatives[1]
    assert decision.reason.startswith(f"too close to {other}: ")


def test_a_clear_request_says_why_it_starts(banking):
    decision = IntentMatcher(banking).decide("I'd like to apply for a loan")
    assert decision.kind == "intent" and decision.reason.startswith("clear: ")


def test_nothing_starts_below_the_refuse_threshold(banking):
    """A pooled score is never above its closest phrase, and start >= refuse: so whatever starts passed
    the refusal line."""
    matcher = IntentMatcher(banking)
    for text in [*out_of_scope_phrases()[:80], "I'd like to apply for a loan", "my card has not come"]:
        decision = matcher.decide(text)
        if decision.kind == "intent":
            assert decision.ranked[0].best >= matcher.calibration.floor


def test_fixed_thresholds_for_a_classifier_that_cannot_be_calibrated(banking):
    assert IntentMatcher(banking, TfidfClassifier()).calibration == Calibration(floor=0.3, sure=0.3, margin=0.0)


def _toy(vectors: dict[str, list[list[float]]], outside: list[list[float]]) -> tuple[Calibration, np.ndarray]:
    """The calibration of a catalog of hand-made phrase vectors, and the out-of-scope ones' closest phrase."""
    texts, owners, rows = [], [], []
    for index, (intent, phrases) in enumerate(vectors.items()):
        for number, row in enumerate(phrases):
            texts.append(f"{intent} {number}")
            owners.append(index)
            rows.append(row)
    matrix = np.array(rows, np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    owners_ = np.array(owners)
    members = [np.flatnonzero(owners_ == i) for i in range(len(vectors))]
    out = np.array(outside, np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    fitted = calibration.fit(matrix, np.ones(len(rows), np.float32), owners_, members, texts, 0.1, out)
    return fitted, (out @ matrix.T).max(axis=1)


def _two_intents() -> tuple[dict[str, list[list[float]]], list[list[float]]]:
    rng = np.random.default_rng(1)
    a = [[1, 0.1 * x, 0, 0] for x in rng.normal(size=12)]
    b = [[0, 1, 0.1 * x, 0] for x in rng.normal(size=12)]
    return {"a": a, "b": b}, [[0.2 * x, 0.2 * y, 0, 1] for x, y in rng.normal(size=(60, 2))]


def test_the_refuse_threshold_lets_few_out_of_scope_requests_through(monkeypatch):
    monkeypatch.setattr(calibration, "PRIOR", 0)  # the fit alone, not drawn towards the fixed thresholds
    c, closest = _toy(*_two_intents())
    assert c.basis == "fitted on 24 of its own phrases left out in turn and 60 out-of-scope requests"
    assert (closest >= c.floor).mean() <= calibration.OOS_LET_THROUGH + 1e-9
    assert c.floor <= c.sure


def test_a_catalog_of_one_intent_keeps_the_fixed_thresholds():
    c, _ = _toy({"a": [[1, 0, 0], [1, 0.1, 0], [1, 0, 0.1]]}, [[0, 0, 1]])
    assert c.basis.startswith("fixed")


def test_a_small_catalogs_thresholds_are_drawn_towards_the_fixed_ones(monkeypatch):
    monkeypatch.setattr(calibration, "PRIOR", 0)
    alone, _ = _toy(*_two_intents())
    monkeypatch.setattr(calibration, "PRIOR", 200)
    drawn, _ = _toy(*_two_intents())  # 24 phrases: about a tenth its own
    prior = calibration.SENTENCE_PRIOR
    assert abs(drawn.floor - prior.floor) < abs(alone.floor - prior.floor)
    assert abs(drawn.margin - prior.margin) <= abs(alone.margin - prior.margin)


def test_a_catalog_with_no_phrases_gets_the_fixed_thresholds_of_its_similarity():
    """Similarities run higher with the layer-3 means beside the sentence vectors: their own fixed thresholds."""
    from tests.unit.engine.test_readout import LayeredVectors, RandomVectors

    layered, plain = SemanticClassifier(LayeredVectors()), SemanticClassifier(RandomVectors())
    for classifier in (layered, plain):
        classifier.fit({"a": [], "b": []})
    assert layered.calibrate().floor == calibration.JOINT_PRIOR.floor
    assert plain.calibrate().floor == calibration.SENTENCE_PRIOR.floor
    assert calibration.JOINT_PRIOR != calibration.SENTENCE_PRIOR
