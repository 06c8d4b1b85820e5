"""Deciding which request an utterance makes: one intent, a choice between two close ones, or none.

`IntentMatcher` wraps any `IntentClassifier` (the semantic one by default, TF-IDF as the fallback when
the embeddings cannot be loaded) and turns its ranking into a decision with a confidence: below the
classifier's threshold nothing fits ("I can help with ..."); two intents within its margin of each
other are offered as "did you mean A or B?".
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from typing import Literal

from ..catalog.spec import CatalogSpec
from .nlu import CLAUSE, IntentClassifier, IntentGuess, TfidfClassifier

log = logging.getLogger(__name__)

VALUES = re.compile(r"\S+@\S+|https?://\S+|[\w-]*\d[\w-]*")  # e-mail addresses, links, codes and numbers
WORDS = re.compile(r"[^\W\d_]{2,}")



def request_text(text: str) -> str:
    """The clauses that ask for something, without short ones that only give a value: in "my laptop is
    broken, my employee id is E12345 and my email is ann@corp.example" the id and the address would
    pull the request towards the intents whose words they share. A message of value clauses only is
    kept whole."""
    clauses = [c.strip() for c in CLAUSE.split(text) if c.strip()]
    # A short clause around a value gives it ("my email is ...", "id E12345"); a longer one may well
    # be the request itself ("book a flight to Paris on 2026-12-01").
    asking = [c for c in clauses if not VALUES.search(c) or len(WORDS.findall(VALUES.sub(" ", c))) > 4]
    return ", ".join(asking) if asking and len(asking) < len(clauses) else text


def _fit(guess: IntentGuess) -> float:
    """How well the intent fits at all: its closest phrase when the classifier pools several."""
    return guess.score if guess.best is None else guess.best


@dataclass(frozen=True)
class Calibration:
    """Below `floor` nothing fits (judged on `IntentGuess.best` when there is one); below `sure`, or
    when the runner-up is within `margin` of the score (relatively: 0.16 is 16% of it), ask."""

    floor: float
    sure: float
    margin: float


# Chosen on bench/data/nlu_dev.yaml only (never on the held-out sets). Whether anything fits is judged
# on the closest single phrase (`IntentGuess.best`, plain cosine: the same scale in every catalog);
# starting outright on the pooled score and, above all, on its lead over the runner-up, relative to
# the score: 0.60 against 0.53 ("a question about my card": status or new card?) is closer than 0.36
# against 0.30 ("a platinum visa"). On the dev set (90 phrasings) this starts 79% outright with 1 wrong
# start, where the old rule (best phrase 0.42, lead 0.04) started 50% with the same wrong start;
# relative leads of 0.16 to 0.25 keep that one wrong start, 0.14 makes two. Embedding cosines run
# higher than TF-IDF overlaps, and TF-IDF keeps its old behaviour (one threshold, no clarification).
CALIBRATION = {"SemanticClassifier": Calibration(floor=0.28, sure=0.26, margin=0.16),
               "TfidfClassifier": Calibration(floor=0.3, sure=0.3, margin=0.0)}
DEFAULT_CALIBRATION = Calibration(floor=0.3, sure=0.3, margin=0.0)


@dataclass(frozen=True)
class IntentDecision:
    kind: Literal["intent", "ambiguous", "none"]
    intent: str | None = None  # the intent started (kind "intent")
    score: float = 0.0  # the intent's score; for "none", the closest phrase's similarity
    alternatives: tuple[str, ...] = ()  # the close intents (kind "ambiguous"), best first
    ranked: tuple[IntentGuess, ...] = ()


def default_classifier() -> IntentClassifier:
    """The semantic classifier, or TF-IDF when its embeddings are not installed."""
    try:
        from .semantic import SemanticClassifier, default_embedder

        return SemanticClassifier(default_embedder())
    except (ImportError, OSError) as error:  # an install without the model package still understands requests
        log.warning("semantic intent matching unavailable (%s); using TF-IDF", error)
        return TfidfClassifier()


def warm_up() -> float:
    """Load the default classifier's model now (1.5-4 s) rather than at the first chat turn; returns the
    seconds it took. Called when a server or worker process starts (orchestrator/apps.py)."""
    import time

    started = time.perf_counter()
    try:
        from .semantic import default_embedder

        default_embedder()(["hello"])  # one call too: onnxruntime sizes its buffers at the first run
    except (ImportError, OSError) as error:
        log.warning("semantic intent matching unavailable (%s); using TF-IDF", error)
    return time.perf_counter() - started


# Fitted default classifiers by what they were fitted on: the chat builds an orchestrator every turn,
# and embedding a catalog's phrases again each time would cost more than the turn itself.
_fitted: dict[tuple, IntentClassifier] = {}
_fitted_lock = threading.Lock()
MAX_FITTED = 64


class IntentMatcher:
    def __init__(self, spec: CatalogSpec, classifier: IntentClassifier | None = None):
        from .semantic import intent_context

        examples = {i.name: tuple(i.examples) for i in spec.intents}
        context = {name: tuple(phrases) for name, phrases in intent_context(spec).items()}
        if classifier is None:
            key = (tuple(examples.items()), tuple(context.items()))
            with _fitted_lock:
                classifier = _fitted.get(key)
                if classifier is None:
                    classifier = default_classifier()
                    classifier.fit(examples, context=context)
                    if len(_fitted) >= MAX_FITTED:
                        _fitted.pop(next(iter(_fitted)))
                    _fitted[key] = classifier
        else:
            classifier.fit(examples, context=context)
        self.classifier = classifier
        self.calibration = CALIBRATION.get(type(self.classifier).__name__, DEFAULT_CALIBRATION)

    def rank(self, text: str) -> list[IntentGuess]:
        return self.classifier.rank(request_text(text))

    def closest(self, text: str) -> dict[str, tuple[str, float, bool]]:
        """Each intent's phrase closest to `text` (the phrase, its similarity, whether it is an example),
        when the classifier can tell (the semantic one can)."""
        closest = getattr(self.classifier, "closest", None)
        return closest(request_text(text)) if closest is not None else {}

    def decide(self, text: str) -> IntentDecision:
        if not WORDS.search(VALUES.sub(" ", text)):  # "ada@example.com", "123-45-6789": a value, no request
            return IntentDecision("none")
        ranked = tuple(self.rank(text))
        c = self.calibration
        if not ranked or _fit(ranked[0]) < c.floor:
            return IntentDecision("none", score=_fit(ranked[0]) if ranked else 0.0, ranked=ranked)
        best = ranked[0]
        runner_up = ranked[1] if len(ranked) > 1 and _fit(ranked[1]) >= c.floor else None
        if runner_up is not None and best.score - runner_up.score < c.margin * best.score:
            return IntentDecision("ambiguous", score=best.score, alternatives=(best.intent, runner_up.intent),
                                  ranked=ranked)
        if best.score < c.sure:  # plausible but unsure: "did you mean A?" (or A or B)
            alternatives = (best.intent,) + ((runner_up.intent,) if runner_up is not None else ())
            return IntentDecision("ambiguous", score=best.score, alternatives=alternatives, ranked=ranked)
        return IntentDecision("intent", intent=best.intent, score=best.score, ranked=ranked)
