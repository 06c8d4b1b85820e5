"""The linear readout that ranks a catalog with a handful of examples per intent, and the decision's rule
that the rival of the intent ranked first is the other intent with the highest score."""

from __future__ import annotations

import numpy as np

from orchestrator.engine.runtime.intents import IntentMatcher
from orchestrator.engine.runtime.nlu import IntentGuess
from orchestrator.engine.runtime.semantic import READOUT_MIN_EXAMPLES, SemanticClassifier, fit_readout


def test_the_readout_learns_the_direction_that_tells_intents_apart():
    rng = np.random.default_rng(0)
    # two intents whose phrases differ along one axis only, buried in noise along the others
    noise = rng.normal(0, 1, (40, 16))
    noise[:, 0] = np.repeat([1.0, -1.0], 20) * 0.3
    matrix = noise / np.linalg.norm(noise, axis=1, keepdims=True)
    owners = np.repeat([0, 1], 20).astype(np.int32)
    weights, biases = fit_readout(matrix, owners, np.ones(40, np.float32), 2, steps=200)
    assert weights[0, 0] > 0 > weights[0, 1]  # the first axis is what it reads
    probe = np.zeros(16)
    probe[0] = 1.0
    assert np.argmax(probe * 20 @ weights + biases) == 0


def test_only_a_catalog_with_a_handful_of_examples_per_intent_gets_a_readout(banking):
    small = SemanticClassifier()
    small.fit({i.name: i.examples for i in banking.intents})
    assert small.readout is None  # four examples each
    more = {i.name: [*i.examples, *(f"{e} please" for e in i.examples)][:READOUT_MIN_EXAMPLES] for i in banking.intents}
    large = SemanticClassifier()
    large.fit(more)
    assert large.readout is not None
    assert large.rank("I need a loan")[0].intent == "apply_loan"


class Ranked:
    """A classifier whose ranking is given: the first intent scores lower than the third."""

    def fit(self, examples, context=None) -> None:
        pass

    def rank(self, text: str) -> list[IntentGuess]:
        return [IntentGuess("a", 0.55, 0.55), IntentGuess("b", 0.40, 0.40), IntentGuess("c", 0.60, 0.60)]


def test_an_intent_ranked_first_over_one_that_scores_higher_is_asked_about_never_started(banking):
    matcher = IntentMatcher(banking, Ranked())
    decision = matcher.decide("something")
    assert decision.kind == "ambiguous" and decision.alternatives == ("a", "c")
