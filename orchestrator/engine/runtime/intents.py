"""Deciding which request an utterance makes: one intent, a choice between two close ones, or none.

`IntentMatcher` wraps any `IntentClassifier` (the semantic one by default, TF-IDF as the fallback when
the embeddings cannot be loaded) and turns its ranking into a decision with its reason in words: below
the refuse threshold nothing fits ("I can help with ..."); two intents within the margin of each other,
or a best one below the start threshold, are offered as "did you mean A or B?". The semantic
classifier's thresholds are fitted on each catalog when it is fitted (`calibration.py`).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from ..catalog.spec import CatalogSpec
from .calibration import Calibration
from .dates import DATE_SAID
from .nlu import CLAUSE, IntentClassifier, IntentGuess, TfidfClassifier
from .text import normalise

if TYPE_CHECKING:
    from .options_named import NamedOptions

log = logging.getLogger(__name__)

VALUES = re.compile(r"\S+@\S+|https?://\S+|[\w-]*\d[\w-]*")  # e-mail addresses, links, codes and numbers
WORDS = re.compile(r"[^\W\d_]{2,}")
# "12 July 2027", "on 12/07/2027": a date with the word that places it
DATE_VALUES = re.compile(rf"(?:\b(?:on|from|to|until|till|by|for|before|after)\s+)?(?:{DATE_SAID.pattern})", re.I)

# A clause that turns a request down: "I don't want time off, I want a place on the Excel course", "don't
# cancel anything, I've moved flats", "nothing wrong with my payslip, I want my wages paid elsewhere", a
# bare "no". It shares its words with the request turned down, and an embedding reads them, not the
# "not". Only these forms: "not working since Monday" or "I'm not able to log in" describe the problem.
# (Matched on the normalised clause: contractions spelt out.)
NOT_THIS = re.compile(r"^(?:no|nope)$|^(?:(?:well|ok|okay|so|oh|no) )?"
                      r"(?:(?:(?:i|we) )?(?:do|did) not (?:want|need|mean)|nothing (?:wrong|the matter) with"
                      r"|(?:please )?do not \w+ (?:anything|it|that))\b")


def request_text(text: str) -> str:
    """The clauses that ask for something: without short ones that only give a value, and without those
    that say what is not wanted (`NOT_THIS`). In "my laptop is broken, my employee id is E12345 and my
    email is ann@corp.example" the id and the address would pull the request towards the intents whose
    words they share. A message of such clauses only is kept whole."""
    clauses = [c.strip() for c in CLAUSE.split(text) if c.strip()]
    # A short clause around a value gives it ("my email is ...", "id E12345"); a longer one may well
    # be the request itself ("book a flight to Paris on 2026-12-01").
    asking = [c for c in clauses if (not VALUES.search(c) or len(WORDS.findall(VALUES.sub(" ", c))) > 4)
              and not NOT_THIS.match(normalise(c))]
    request = ", ".join(asking) if asking and len(asking) < len(clauses) else text
    # The dates in a request say nothing of which one it is ("hire a van from 10 July 2027 to 12 July 2027"),
    # and their tokens can outnumber its words: left out, when words remain.
    bare = " ".join(DATE_VALUES.sub(" ", request).split())
    return bare if WORDS.search(bare) else request


def _fit(guess: IntentGuess) -> float:
    """How well the intent fits at all: its closest phrase when the classifier pools several."""
    return guess.score if guess.best is None else guess.best


# Fixed thresholds for classifiers that cannot be calibrated on their catalog and have no `prior` (TF-IDF
# keeps its old behaviour: one threshold, no clarification).
DEFAULT_CALIBRATION = Calibration(floor=0.3, sure=0.3, margin=0.0)
THIRD_MARGIN = 2.0  # a third intent is offered when within this many margins of the best (`_with_third`)
# An unsure request's runner-up is offered beside it when this close, even if its own closest phrase is
# under the refuse threshold: a choice of two costs the user one word more than a yes-or-no question, a
# missing choice a rephrasing. (Development sets, bench/data/nlu_dev.yaml and nlu_dev2.yaml: 8 more of
# 554 phrasings reached in one pick, 31 of 95 single offers made two; 1.25 margins reached 5, 2 reached 8.)
SECOND_MARGIN = 1.5


@dataclass(frozen=True)
class IntentDecision:
    kind: Literal["intent", "ambiguous", "none"]
    intent: str | None = None  # the intent started (kind "intent")
    score: float = 0.0  # the intent's score; for "none", the closest phrase's similarity
    alternatives: tuple[str, ...] = ()  # the close intents (kind "ambiguous"), best first
    ranked: tuple[IntentGuess, ...] = ()
    reason: str = ""  # why, in words: "nothing close", "too close to X", ...


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
    seconds it took. Called when a server or worker process starts (orchestrator/apps.py).

    What every catalog's first fit needs whatever the catalog is comes too: the English word list of
    the spelling repair and the vectors of the shipped out-of-scope requests (its calibration) and of the
    requests for other services (`SemanticClassifier.other_service`), which otherwise cost the first
    message of each process about 0.6 s."""
    import time

    from .calibration import other_service_requests, out_of_scope_phrases
    from .spelling import english_words
    from .text import normalise

    started = time.perf_counter()
    english_words()
    try:
        from .semantic import default_embedder

        # Embedded as calibration embeds them (repair leaves English words alone), so they are kept.
        default_embedder()([normalise(p) for p in (*out_of_scope_phrases(), *other_service_requests())])
    except (ImportError, OSError) as error:
        log.warning("semantic intent matching unavailable (%s); using TF-IDF", error)
    return time.perf_counter() - started


@dataclass
class _Job:
    """A catalog being fitted by one thread while others wait for it: first its classifier (the phrases
    embedded, the readouts fitted), then its thresholds."""

    classifier: IntentClassifier
    fitted: Future = field(default_factory=Future)
    calibrated: Future = field(default_factory=Future)


# Fitted default classifiers and their calibration by what they were fitted on: the chat builds an
# orchestrator every turn, and embedding a catalog's phrases again each time would cost more than the turn.
_fitted: dict[tuple, tuple[IntentClassifier, Calibration]] = {}
_fitted_lock = threading.Lock()
MAX_FITTED = 64
# Thresholds being fitted for the studio's tester, which answers meanwhile (`IntentMatcher(..., wait=)`),
# and the thresholds last fitted for each catalog (by name), which it shows until the new ones are ready.
_fitting: dict[tuple, _Job] = {}
_last: dict[str, Calibration] = {}


def calibrate(classifier: IntentClassifier) -> Calibration:
    """The catalog's own thresholds when the classifier can fit them (the semantic one), else fixed ones."""
    fitted = getattr(classifier, "calibrate", None)
    if fitted is not None:
        return fitted()
    return fixed_calibration(classifier)


def fixed_calibration(classifier: IntentClassifier) -> Calibration:
    """The thresholds used before (or instead of) a catalog's own: the classifier's prior, when it has one."""
    prior = getattr(classifier, "prior", None)
    return prior if isinstance(prior, Calibration) else DEFAULT_CALIBRATION


class IntentMatcher:
    """`wait`: at most this many seconds for the catalog's thresholds when they are not fitted yet (a
    large catalog takes about a second); meanwhile the matcher decides with the thresholds last fitted
    for a catalog of this name, else the fixed ones, and `provisional` says so. None (the chat): wait."""

    def __init__(self, spec: CatalogSpec, classifier: IntentClassifier | None = None, wait: float | None = None):
        from .semantic import intent_context

        self.spec: CatalogSpec | None = spec
        self._fit({i.name: tuple(i.examples) for i in spec.intents},
                  {name: tuple(phrases) for name, phrases in intent_context(spec).items()}, classifier,
                  name=spec.catalog, wait=wait)

    @classmethod
    def from_phrases(cls, examples: Mapping[str, Sequence[str]], context: Mapping[str, Sequence[str]] | None = None,
                     classifier: IntentClassifier | None = None) -> IntentMatcher:
        """A matcher of intents given as phrases rather than a catalog (the public benchmarks' intents
        have examples and a name, no goal)."""
        matcher = cls.__new__(cls)
        matcher.spec = None
        matcher._fit({k: tuple(v) for k, v in examples.items()},
                     {k: tuple(v) for k, v in (context or {}).items()}, classifier)
        return matcher

    def _fit(self, examples: dict[str, tuple[str, ...]], context: dict[str, tuple[str, ...]],
             classifier: IntentClassifier | None, name: str = "", wait: float | None = None) -> None:
        self.provisional = ""  # why the thresholds are not (yet) this catalog's own, when they are not
        if classifier is not None:
            classifier.fit(examples, context=context)
            self.classifier, self.calibration = classifier, calibrate(classifier)
            return
        key = (tuple(examples.items()), tuple(context.items()))
        with _fitted_lock:
            found = _fitted.get(key)
            job = _fitting.get(key) if found is None else None
            mine = found is None and job is None
            if mine:
                job = _fitting[key] = _Job(default_classifier())
        if found is not None:
            self.classifier, self.calibration = found
            return
        assert job is not None
        if mine:  # fitted outside the lock: a large catalog's seconds must not hold up other catalogs' turns
            _fit_classifier(key, job, examples, context)
            if wait is None:  # the chat: calibrated here, as before
                _calibrate(key, name, job)
            else:  # the tester: calibrated aside, so that it can answer meanwhile
                threading.Thread(target=_calibrate, args=(key, name, job), daemon=True,
                                 name="concerto-calibrate").start()
        job.fitted.result()  # another thread is fitting this very catalog: its ranking is needed either way
        self.classifier = classifier = job.classifier
        try:
            self.calibration = job.calibrated.result(timeout=wait)
        except TimeoutError:
            previous = _last.get(name)
            self.calibration = previous or fixed_calibration(classifier)
            self.provisional = (f"this catalog's thresholds are being fitted on its "
                                f"{len(getattr(classifier, 'phrases', ())) or 'new'} phrases; until they are, "
                                + ("the thresholds last fitted for it are used" if previous else
                                   "the fixed default thresholds are used"))

    def rank(self, text: str) -> list[IntentGuess]:
        return self.classifier.rank(request_text(text))

    def closest(self, text: str) -> dict[str, tuple[str, float, bool]]:
        """Each intent's phrase closest to `text` (the phrase, its similarity, whether it is an example),
        when the classifier can tell (the semantic one can)."""
        closest = getattr(self.classifier, "closest", None)
        return closest(request_text(text)) if closest is not None else {}

    @cached_property
    def options(self) -> NamedOptions | None:
        """The catalog's enum options by the intents that take them, worked out at the first unsure
        request (the chat builds a matcher every turn)."""
        from .options_named import NamedOptions

        return NamedOptions(self.spec) if self.spec is not None else None

    def decide(self, text: str) -> IntentDecision:
        decision = self._decide(text)
        named = self.options.settle(text, decision.alternatives) \
            if decision.kind == "ambiguous" and self.options is not None else None
        if named is None:
            return decision
        intent = decision.alternatives[0]
        options = " and ".join(f"{value} ({element})" for element, value in named.items())
        return IntentDecision("intent", intent=intent, score=decision.score, ranked=decision.ranked,
                              reason=f"settled by what it names: {options}, which of "
                                     f"{', '.join(decision.alternatives)} only {intent} takes")

    def _decide(self, text: str) -> IntentDecision:
        if not WORDS.search(VALUES.sub(" ", text)):  # "ada@example.com", "123-45-6789": a value, no request
            return IntentDecision("none", reason="a value, not a request")
        request = request_text(text)
        ranked = tuple(self.classifier.rank(request))
        c = self.calibration
        if not ranked or _fit(ranked[0]) < c.floor:
            fit = _fit(ranked[0]) if ranked else 0.0
            return IntentDecision("none", score=fit, ranked=ranked,
                                  reason=f"nothing close: the closest phrase scores {fit:.2f}, below the refuse "
                                         f"threshold {c.floor:.2f}")
        best = ranked[0]
        elsewhere = getattr(self.classifier, "other_service", None)
        if elsewhere is not None and (found := elsewhere(request, _fit(best))) is not None:
            request, similarity = found
            return IntentDecision("none", score=_fit(best), ranked=ranked,
                                  reason=f"another service's business: closer to \"{request}\" ({similarity:.2f}) "
                                         f"than to any phrase of this catalog ({_fit(best):.2f})")
        # The rival is the other intent with the highest score, wherever the ranking put it (a readout may
        # rank an intent first over one that scores higher: the lead is then negative, and the user asked).
        rival = max(ranked[1:], key=lambda g: g.score, default=None)
        runner_up = rival if rival is not None and _fit(rival) >= c.floor else None
        if runner_up is not None and best.score - runner_up.score < c.margin * best.score:
            return IntentDecision("ambiguous", score=best.score,
                                  alternatives=_with_third(ranked, (best.intent, runner_up.intent), c),
                                  ranked=ranked,
                                  reason=f"too close to {runner_up.intent}: {best.score:.2f} against "
                                         f"{runner_up.score:.2f}, a lead of {_lead(best, runner_up):.0%} where "
                                         f"{c.margin:.0%} is needed")
        if best.score < c.sure:  # plausible but unsure: "did you mean A?" (or A or B)
            second = runner_up if runner_up is not None else _near(best, rival, SECOND_MARGIN, c)
            alternatives = (best.intent,) + ((second.intent,) if second is not None else ())
            return IntentDecision("ambiguous", score=best.score, alternatives=_with_third(ranked, alternatives, c),
                                  ranked=ranked,
                                  reason=f"not sure enough: {best.score:.2f}, below the start threshold "
                                         f"{c.sure:.2f}")
        ahead = f", {_lead(best, runner_up):.0%} ahead of {runner_up.intent}" if runner_up is not None else ""
        return IntentDecision("intent", intent=best.intent, score=best.score, ranked=ranked,
                              reason=f"clear: {best.score:.2f}, at or above the start threshold {c.sure:.2f}{ahead}")


def _with_third(ranked: tuple[IntentGuess, ...], offered: tuple[str, ...], c: Calibration) -> tuple[str, ...]:
    """The intents to offer in "did you mean ...?": those already chosen, and the next one in the ranking
    when it too fits and is within `THIRD_MARGIN` times the margin of the best (relatively). A third
    choice costs the user a longer question; missing the right one costs a rephrasing. (On the development
    sets, bench/data/nlu_dev2.yaml and CLINC150's validation domains, the right intent was among those
    offered for 2-4% more of the messages, with no more wrong starts: a start is never decided here.)"""
    if len(offered) != 2:
        return offered
    best = ranked[0]
    third = next((g for g in ranked if g.intent not in offered), None)
    if third is None or _fit(third) < c.floor or _near(best, third, THIRD_MARGIN, c) is None:
        return offered
    return (*offered, third.intent)


def _near(best: IntentGuess, other: IntentGuess | None, margins: float, c: Calibration) -> IntentGuess | None:
    """`other` when its score is within `margins` times the margin of the best's (relatively)."""
    if other is None or best.score - other.score >= margins * c.margin * best.score:
        return None
    return other


def _fit_classifier(key: tuple, job: _Job, examples: dict[str, tuple[str, ...]],
                    context: dict[str, tuple[str, ...]]) -> None:
    try:
        job.classifier.fit(examples, context=context)
    except BaseException as error:  # every waiting caller raises it; the next one tries again
        _failed(key, job, error)
        raise
    job.fitted.set_result(None)


def _calibrate(key: tuple, name: str, job: _Job) -> None:
    """Fit the job's thresholds, then keep its classifier and them among the fitted ones."""
    try:
        calibration = calibrate(job.classifier)
    except BaseException as error:
        _failed(key, job, error)
        return
    with _fitted_lock:
        if len(_fitted) >= MAX_FITTED:
            _fitted.pop(next(iter(_fitted)))
        _fitted[key] = (job.classifier, calibration)
        _fitting.pop(key, None)
        if name:
            _last[name] = calibration
    job.calibrated.set_result(calibration)


def _failed(key: tuple, job: _Job, error: BaseException) -> None:
    with _fitted_lock:
        _fitting.pop(key, None)
    for future in (job.fitted, job.calibrated):
        if not future.done():
            future.set_exception(error)


def _lead(best: IntentGuess, runner_up: IntentGuess) -> float:
    return (best.score - runner_up.score) / best.score if best.score > 0 else 0.0
