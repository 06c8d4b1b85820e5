"""Each catalog's own thresholds for starting an intent, asking "did you mean ...?", or refusing.

Fixed thresholds served no catalog well: cosine similarities run higher in a catalog of near-identical
banking intents than in one of unrelated requests, so the same 0.28 let "watch the fbi" start
report_fraud in one and refused plain requests in another. The thresholds are fitted instead, on
what the catalog itself says, whenever its phrases change:

- **in scope**: every example and description, left out in turn, is matched against the rest of the
  catalog (leave-one-out), as if a user had written it;
- **out of scope**: a few hundred requests no business assistant serves (`data/out_of_scope.txt`,
  written for this: weather, jokes, recipes, trivia...), minus any that come as close to the catalog
  as its own phrases do (a weather catalog keeps its weather).

`refuse` (on the closest single phrase) lets few out-of-scope requests through while refusing few of
the catalog's own phrases; then `start` (on the intent's pooled score) and `margin` (its lead over the
runner-up, relative to it) are the pair that starts the most left-out phrases right while starting at
most `WRONG_STARTS` of them wrongly and at most `OOS_STARTS` of the out-of-scope requests. `start` is
never below `refuse`: a pooled score is never above its closest phrase, so nothing starts that would
be refused. Left-out phrases are a little easier than real users' (the catalog's writer wrote them
alike), so the shares are set tighter than the targets, and a catalog with few phrases is drawn
towards fixed thresholds (the refuse threshold too: added after a first run on the held-out sets, see README).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import numpy as np

OUT_OF_SCOPE_FILE = Path(__file__).resolve().parent / "data" / "out_of_scope.txt"
OTHER_SERVICES_FILE = Path(__file__).resolve().parent / "data" / "other_services.txt"
WRONG_STARTS = 0.01  # of the left-out phrases: started as another intent
OOS_STARTS = 0.02  # of the out-of-scope requests: started as anything
OOS_LET_THROUGH = 0.05  # of the out-of-scope requests: not refused outright (asked about, at most)
IN_REFUSED = 0.05  # of the left-out phrases: refused outright, at most
# A small catalog says little about itself: its fitted thresholds are drawn towards fixed ones in
# proportion to how few phrases it has; at PRIOR phrases, half way.
PRIOR = 200
MAX_QUERIES = 1500  # left-out phrases matched at most (evenly spread): a big catalog fits in a second
REFUSE_RANGE = (0.15, 0.6)
START_RANGE = (0.2, 0.85)
MARGINS = tuple(np.round(np.arange(0.0, 0.32, 0.02), 2))


@dataclass(frozen=True)
class Calibration:
    """Below `floor` (the refuse threshold, on the closest phrase) nothing fits; below `sure` (the start
    threshold, on the pooled score), or when the runner-up is within `margin` of the score (relatively:
    0.16 is 16% of it), ask. `basis` says in words what they were fitted on."""

    floor: float
    sure: float
    margin: float
    basis: str = "fixed"

    def drawn(self, fitted: Calibration, trust: float) -> Calibration:
        """`fitted` drawn towards these thresholds, keeping `trust` of its own (the start never below
        the refuse threshold)."""
        refuse = trust * fitted.floor + (1 - trust) * self.floor
        start = max(refuse, trust * fitted.sure + (1 - trust) * self.sure)
        margin = trust * fitted.margin + (1 - trust) * self.margin
        return Calibration(floor=round(refuse, 3), sure=round(start, 3), margin=round(margin, 3),
                           basis=fitted.basis)

    @property
    def refuse(self) -> float:
        return self.floor

    @property
    def start(self) -> float:
        return self.sure


# The fixed thresholds: on sentence vectors alone (chosen on bench/data/nlu_dev.yaml), and on the sentence
# vectors beside their layer-3 means (`semantic.match_vectors`, chosen on bench/data/nlu_dev2.yaml and on
# CLINC150's validation split cut into its ten domains; see README's "How recognition decides").
SENTENCE_PRIOR = Calibration(floor=0.28, sure=0.26, margin=0.16, basis="fixed")
JOINT_PRIOR = Calibration(floor=0.24, sure=0.32, margin=0.18, basis="fixed")


def out_of_scope_phrases() -> tuple[str, ...]:
    return _lines(OUT_OF_SCOPE_FILE)


def other_service_requests() -> tuple[str, ...]:
    """Requests people make of businesses and public services of every trade (`other_services.py`)."""
    return _lines(OTHER_SERVICES_FILE)


@cache
def _lines(path: Path) -> tuple[str, ...]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@dataclass(frozen=True)
class Features:
    """What a decision is made on, one row per message: the best intent's pooled score (`s1`) and closest
    phrase (`f1`), the runner-up's (`s2`, `f2`), and the best intent's index (`top`)."""

    s1: np.ndarray
    f1: np.ndarray
    s2: np.ndarray
    f2: np.ndarray
    top: np.ndarray


def features(similarity: np.ndarray, members: list[np.ndarray], temperature: float,
             excluded: np.ndarray | None = None) -> Features:
    """Decision features of each row of weighted phrase similarities (rows: messages, columns: phrases),
    the intents' phrases pooled as `SemanticClassifier` pools them; `excluded` phrases (True) count
    as absent (a left-out phrase and its exact copies)."""
    rows = similarity.shape[0]
    pooled = np.full((rows, len(members)), -np.inf, np.float32)
    closest = np.full((rows, len(members)), -np.inf, np.float32)
    for index, phrases in enumerate(members):
        if not phrases.size:
            continue
        sub = similarity[:, phrases].astype(np.float64)
        present = np.ones_like(sub, bool) if excluded is None else ~excluded[:, phrases]
        sub = np.where(present, sub, -np.inf)
        count = present.sum(axis=1)
        best = sub.max(axis=1)
        alive = count > 0
        safe_best = np.where(alive, best, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            total = np.where(present, np.exp((sub - safe_best[:, None]) / temperature), 0.0).sum(axis=1)
            pool = safe_best + temperature * np.log(total / np.maximum(count, 1))
        pooled[:, index] = np.where(alive, pool, -np.inf)
        closest[:, index] = np.where(alive, best, -np.inf)
    order = np.argsort(-pooled, axis=1)
    top, second = order[:, 0], order[:, 1] if len(members) > 1 else order[:, 0]
    pick = np.arange(rows)
    has_second = len(members) > 1
    return Features(s1=pooled[pick, top], f1=closest[pick, top],
                    s2=pooled[pick, second] if has_second else np.full(rows, -np.inf),
                    f2=closest[pick, second] if has_second else np.full(rows, -np.inf), top=top)


def starts(f: Features, refuse: float, start: float, margin: float) -> np.ndarray:
    """Which rows start their best intent under these thresholds (the rule `IntentMatcher.decide` applies)."""
    close_second = (f.f2 >= refuse) & (f.s1 - f.s2 < margin * f.s1)
    return (f.f1 >= refuse) & (f.s1 >= start) & ~close_second


def fit(matrix: np.ndarray, weights: np.ndarray, owners: np.ndarray, members: list[np.ndarray],
        texts: list[str], temperature: float, out_of_scope: np.ndarray,
        prior: Calibration = SENTENCE_PRIOR) -> Calibration:
    """The catalog's thresholds from its phrase embeddings (`matrix`, unit rows), their weights, which
    intent owns each (`owners`), the phrases as embedded (`texts`: exact copies are left out together)
    and the out-of-scope phrases' embeddings; drawn towards `prior` the fewer phrases it has."""
    n = matrix.shape[0]
    queries = np.arange(n) if n <= MAX_QUERIES else np.linspace(0, n - 1, MAX_QUERIES).astype(int)
    # A left-out phrase must have something left in its intent, else it tells nothing about matching.
    left = np.array([sum(t != texts[q] for t in (texts[j] for j in members[owners[q]])) > 0 for q in queries])
    queries = queries[left]
    if len(members) < 2 or queries.size < 4:
        return replace(prior, basis="fixed (too few phrases to fit)")
    groups: dict[str, list[int]] = {}
    for index, text in enumerate(texts):
        groups.setdefault(text, []).append(index)
    excluded = np.zeros((queries.size, n), bool)
    for row, q in enumerate(queries):
        excluded[row, groups[texts[q]]] = True
    inside = features((matrix[queries] @ matrix.T) * weights, members, temperature, excluded)
    right = inside.top == owners[queries]
    outside = features((out_of_scope @ matrix.T) * weights, members, temperature)
    # An out-of-scope phrase as close as the catalog's own typical phrase is this catalog's business.
    kept = outside.f1 < np.median(inside.f1)
    outside = Features(*(getattr(outside, name)[kept] for name in ("s1", "f1", "s2", "f2", "top")))
    refuse = _refuse(inside.f1, outside.f1)
    start, margin = _start(inside, right, outside, refuse)
    fitted = Calibration(floor=refuse, sure=start, margin=margin,
                         basis=f"fitted on {queries.size} of its own phrases left out in turn and "
                               f"{int(kept.sum())} out-of-scope requests")
    return prior.drawn(fitted, trust=queries.size / (queries.size + PRIOR))


def _refuse(inside: np.ndarray, outside: np.ndarray) -> float:
    """The closest-phrase similarity that lets through at most `OOS_LET_THROUGH` of the out-of-scope
    requests, unless that would refuse more than `IN_REFUSED` of the catalog's own phrases; within
    `REFUSE_RANGE`. (The out-of-scope side is the one to trust: the catalog's phrases left out are more
    alike than users' phrasings are, so separating them "best" would refuse too many users.)"""
    refuse = float(np.quantile(outside, 1 - OOS_LET_THROUGH)) if outside.size else REFUSE_RANGE[0]
    refuse = min(refuse, float(np.quantile(inside, IN_REFUSED)))
    return min(max(refuse, REFUSE_RANGE[0]), REFUSE_RANGE[1])


def _start(inside: Features, right: np.ndarray, outside: Features, refuse: float) -> tuple[float, float]:
    """The (start, margin) pair that starts the most left-out phrases right, within the wrong-start and
    out-of-scope-start budgets; the strictest pair when none is within them."""
    low = max(refuse, START_RANGE[0])
    candidates = np.unique(np.round(np.concatenate([[low], inside.s1[inside.s1 >= low]]), 3))
    candidates = candidates[candidates <= START_RANGE[1]]
    if not candidates.size:
        candidates = np.array([low])

    def within(start: float, margin: float) -> bool:
        started = starts(inside, refuse, start, margin)
        oos = starts(outside, refuse, start, margin).mean() if outside.s1.size else 0.0
        return (started & ~right).mean() <= WRONG_STARTS and oos <= OOS_STARTS

    best: tuple[float, float, float] | None = None  # started right, start, margin
    for margin in MARGINS:
        # A higher start only starts fewer (right, wrong and out of scope alike): the lowest start within
        # the budgets is this margin's best, found by bisection.
        low, high = 0, candidates.size
        while low < high:
            middle = (low + high) // 2
            if within(float(candidates[middle]), float(margin)):
                high = middle
            else:
                low = middle + 1
        if low < candidates.size:
            start = float(candidates[low])
            score = float((starts(inside, refuse, start, margin) & right).mean())
            if best is None or score > best[0] + 1e-9:
                best = (score, start, float(margin))
    if best is None:
        return float(START_RANGE[1]), float(MARGINS[-1])
    return best[1], best[2]
