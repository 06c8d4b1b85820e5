"""The studio's tester answers while a catalog's thresholds are being fitted: with the thresholds last
fitted for the catalog, else the fixed ones, saying so; the chat always waits for the catalog's own."""

from __future__ import annotations

import threading
import time

import pytest

from orchestrator.engine.runtime import intents
from orchestrator.engine.runtime.intents import IntentMatcher, fixed_calibration
from orchestrator.engine.runtime.semantic import SemanticClassifier


@pytest.fixture
def slow_fit(monkeypatch):
    """Thresholds that take until the test releases them; a fresh cache of fitted catalogs."""
    monkeypatch.setattr(intents, "_fitted", {})
    monkeypatch.setattr(intents, "_fitting", {})
    monkeypatch.setattr(intents, "_last", {})
    release = threading.Event()
    fit = SemanticClassifier.calibrate

    def calibrate(self):
        assert release.wait(30)
        return fit(self)

    monkeypatch.setattr(SemanticClassifier, "calibrate", calibrate)
    return release


def _with_example(spec, text: str):
    first = spec.intents[0].model_copy(update={"examples": [*spec.intents[0].examples, text]})
    return spec.model_copy(update={"intents": [first, *spec.intents[1:]]})


def _fitted(spec) -> IntentMatcher:
    deadline = time.monotonic() + 30
    while intents._fitting and time.monotonic() < deadline:
        time.sleep(0.05)
    return IntentMatcher(spec, wait=0.1)


def test_the_tester_answers_with_the_fixed_thresholds_then_the_catalogs_own(banking, slow_fit):
    began = time.monotonic()
    matcher = IntentMatcher(banking, wait=0.2)
    assert time.monotonic() - began < 10  # it did not wait for the thresholds
    assert matcher.calibration == fixed_calibration(matcher.classifier)
    assert "being fitted" in matcher.provisional and "fixed default thresholds" in matcher.provisional
    assert matcher.decide("I need a loan").kind == "intent"  # it decides meanwhile
    slow_fit.set()
    fitted = _fitted(banking)
    assert fitted.provisional == "" and fitted.calibration.basis.startswith("fitted on ")


def test_after_an_edit_the_tester_shows_the_thresholds_last_fitted_for_the_catalog(banking, slow_fit):
    slow_fit.set()
    IntentMatcher(banking, wait=0.1)  # the catalog as it was, fitted
    before = _fitted(banking).calibration
    slow_fit.clear()
    edited = _with_example(banking, "I would like to borrow for a new kitchen")
    matcher = IntentMatcher(edited, wait=0.2)
    assert matcher.calibration == before and "last fitted for it" in matcher.provisional
    slow_fit.set()
    assert _fitted(edited).provisional == ""


def test_the_chat_waits_for_the_catalogs_own_thresholds(banking, slow_fit):
    threading.Timer(0.5, slow_fit.set).start()
    matcher = IntentMatcher(banking)
    assert matcher.provisional == "" and matcher.calibration.basis.startswith("fitted on ")


def test_a_catalog_being_fitted_holds_up_no_other_catalogs_turn(banking, monkeypatch):
    """A studio edit of a large catalog embeds its phrases for seconds; meanwhile every chat turn of
    another catalog builds its matcher from the fitted ones, and must get it at once."""
    monkeypatch.setattr(intents, "_fitted", {})
    monkeypatch.setattr(intents, "_fitting", {})
    IntentMatcher(banking)  # fitted: what a live assistant's turns find
    release = threading.Event()
    fit = SemanticClassifier.fit

    def slow(self, examples, context=None):
        assert release.wait(30)
        return fit(self, examples, context=context)

    monkeypatch.setattr(SemanticClassifier, "fit", slow)
    edited = _with_example(banking, "I would like to borrow for a new kitchen")
    fitting = threading.Thread(target=IntentMatcher, args=(edited,), kwargs={"wait": 0.1})
    fitting.start()
    try:
        deadline = time.monotonic() + 10
        while not intents._fitting and time.monotonic() < deadline:
            time.sleep(0.01)
        assert intents._fitting  # the edited catalog's fit is under way
        turn = threading.Thread(target=IntentMatcher, args=(banking,))
        turn.start()
        turn.join(timeout=5)
        assert not turn.is_alive()  # it did not wait for the other catalog's fit
    finally:
        release.set()
        fitting.join(timeout=30)
    assert not intents._fitting


def test_a_fit_that_fails_is_raised_to_its_caller_and_forgotten(banking, monkeypatch):
    monkeypatch.setattr(intents, "_fitted", {})
    monkeypatch.setattr(intents, "_fitting", {})

    def broken(self, examples, context=None):
        raise RuntimeError("the encoder broke")

    monkeypatch.setattr(SemanticClassifier, "fit", broken)
    with pytest.raises(RuntimeError, match="encoder broke"):
        IntentMatcher(banking)
    assert not intents._fitting and not intents._fitted  # the next caller tries again
