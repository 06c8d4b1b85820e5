"""The linear readout that ranks a catalog with a handful of examples per intent, and the decision's rule
that the rival of the intent ranked first is the other intent with the highest score."""

from __future__ import annotations

import zlib

import numpy as np

from orchestrator.engine.runtime.calibration import out_of_scope_phrases
from orchestrator.engine.runtime.intents import IntentMatcher
from orchestrator.engine.runtime.nlu import IntentGuess
from orchestrator.engine.runtime.readouts import Lexicon, fit_readout, readout_input
from orchestrator.engine.runtime.semantic import READOUT_MIN_EXAMPLES, SemanticClassifier
from orchestrator.engine.runtime.text import normalise


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


def test_a_lexicon_reads_the_catalogs_character_ngrams_as_a_unit_vector():
    lexicon = Lexicon(["card arrival", "card delivery estimate"])
    assert " ca" in lexicon.index and "val " in lexicon.index and "card" in lexicon.index
    assert lexicon.idf[lexicon.index[" car"]] < lexicon.idf[lexicon.index[" arr"]]  # in both phrases: less telling
    columns, values = lexicon.vector("my card arrived")
    assert np.isclose(np.linalg.norm(values), 1.0)
    assert lexicon.index[" arr"] in columns and " my " not in lexicon.index  # the catalog's n-grams only
    assert lexicon.vector("xyz")[0].size == 0


class RandomVectors:
    """A random direction per text, nearly orthogonal to every other: meaning nothing, so only the
    lexical readout can tell the intents apart."""

    def __call__(self, texts: list[str]) -> np.ndarray:
        rows = [np.random.default_rng(zlib.crc32(t.encode())).normal(size=256) for t in texts]
        return np.array([r / np.linalg.norm(r) for r in rows], np.float32)


def test_the_lexical_readout_ranks_by_the_words_when_the_sentence_vectors_cannot():
    classifier = SemanticClassifier(RandomVectors())
    classifier.fit({
        "card_arrival": ["my card has not arrived", "where is my card", "card still not arrived",
                         "has my card arrived yet", "the card never arrived"],
        "card_delivery_estimate": ["how long does card delivery take", "when will the card be delivered",
                                   "delivery time for a card", "card delivery estimate", "how fast is delivery"],
    })
    assert classifier.lexical is not None
    assert classifier.rank("it still has not arrived")[0].intent == "card_arrival"
    assert classifier.rank("what is the delivery time")[0].intent == "card_delivery_estimate"


class LayeredVectors(RandomVectors):
    """Sentence vectors that mean nothing, and two inner means: the first as meaningless as the sentence
    vector, the second telling two intents apart by a word no phrase of the other has ("arrive"/"deliver"):
    only a readout reading the inner means can rank by it."""

    def __init__(self):
        self.calls = 0

    def with_layer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        layer = np.array([[1.0, 0.2, 0.0] if "arriv" in t else [0.0, 0.2, 1.0] if "deliver" in t else [0, 1.0, 0]
                          for t in texts])
        layer = np.hstack([layer, np.zeros((len(texts), 253))])
        layer = (layer / np.linalg.norm(layer, axis=1, keepdims=True)).astype(np.float32)
        vectors = self(texts)
        return vectors, np.stack([vectors[:, ::-1], layer], axis=1)


CARDS = {
    "card_arrival": ["my card has not arrived", "where is my card", "card still not arrived",
                     "has my card arrived yet", "the card never arrived"],
    "card_delivery_estimate": ["how long does card delivery take", "when will the card be delivered",
                               "delivery time for a card", "card delivery estimate", "how fast is delivery"],
}


def test_the_vector_readout_reads_the_inner_means_instead_of_the_sentence_vector_when_the_embedder_gives_them():
    layered = SemanticClassifier(LayeredVectors())
    layered.fit(CARDS)
    plain = SemanticClassifier(RandomVectors())  # the same sentence vectors, no layer: the readout as before
    plain.fit(CARDS)
    assert layered.readout is not None and plain.readout is not None
    assert layered.readout[0].shape == (512, 2) and plain.readout[0].shape == (256, 2)
    # similarity reads each sentence vector beside its layer-3 mean (the second), at unit length
    # less the mean of everyday requests' layer-3 vectors
    vectors, inner = layered.embed.with_layer(layered.embedded)
    _, everyday = layered.embed.with_layer([normalise(p) for p in out_of_scope_phrases()])
    assert np.allclose(layered.centre, everyday[:, 1].mean(axis=0))
    layer = inner[:, 1] - layered.centre
    layer /= np.maximum(np.linalg.norm(layer, axis=1, keepdims=True), 1e-9)
    assert np.allclose(layered.matrix, np.hstack([plain.matrix, layer]) / np.sqrt(2), atol=1e-6)
    embedder = layered.embed
    weights, biases = layered.readout
    features = readout_input(*embedder.with_layer(["it arrived"]))[0]
    assert np.isclose(np.linalg.norm(features), 1.0) and features.shape == (512,)
    assert np.argmax(features * 20 @ weights + biases) == 0  # the second inner mean is what it learnt
    embedder.calls = 0
    layered.rank("it still has not arrived")
    assert embedder.calls == 1  # one call per message, both outputs at once


def test_the_readouts_input_is_the_inner_means_side_by_side_at_unit_length_or_the_vector_alone():
    vectors = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    first = np.array([[0.0, 1.0], [1.0, 0.0]], np.float32)
    second = np.array([[0.0, 1.0], [0.6, 0.8]], np.float32)
    assert readout_input(vectors, None) is vectors
    inner = np.stack([first, second], axis=1)
    assert np.allclose(readout_input(vectors, inner), np.hstack([first, second]) / np.sqrt(2))


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


def test_similarity_reads_the_layer_3_means_beside_the_sentence_vectors():
    """Two examples an intent: no readout; the ranking is the pooled similarity alone, and only layer 3
    tells "arrive" from "deliver" (the sentence vectors are noise)."""
    few = {intent: phrases[:2] for intent, phrases in CARDS.items()}
    layered = SemanticClassifier(LayeredVectors())
    layered.fit(few)
    assert layered.readout is None
    assert layered.rank("it arrived this morning")[0].intent == "card_arrival"
    assert layered.rank("will it be delivered soon")[0].intent == "card_delivery_estimate"
    plain = SemanticClassifier(RandomVectors())
    plain.fit(few)
    assert plain.matrix.shape == (4, 256)  # without inner means: the sentence vectors alone
