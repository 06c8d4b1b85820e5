"""The learner: spec refinements mined from observed conversations.

Inputs a mode needs are learned *safely* in the sense of SAM learning (Juba, Le and Stern, KR
2021): the safe precondition set of a mode is everything the conversation knew at every successful
call, so an element leaves it only when a success was observed without it, and the learned model
never lets the planner call a skill without what it really needs. The safe set over-approximates;
an extra input is proposed only when rejected calls single it out, or when it alone explains
several rejections.

How many observations: under SAM's assumptions (a call is rejected exactly when a needed element is
unknown) ONE success already bounds the true preconditions (each is in the safe set), so a
rejected call that lacked exactly one element of the safe set proves that element is needed:
deduction, not statistics. Real skills also reject for reasons SAM does not model (a value a
rule refuses), so the same deduction must be made from `input_singled` = 2 rejections: one
unrelated rejection cannot add an input. The other rule (an element that alone explains the most
rejections, none singling it out) is a guess among candidates, not a deduction: it waits for 5
successes (a safe set narrowed by several conversations) and 3 rejections. Outputs are effects: what
appeared after successes. Every other kind counts what happened against what the spec says, and is
proposed only past a number of observations (`Thresholds`), chosen a priori, never fitted to a
benchmark's answer key.

Failures carry evidence too: a rejection whose answer names an input the call lacked
(`runtime.rejections.named_parameters`: a 422's `detail[].loc`, a schema's `errors[]`, "missing required
parameter 'x'", the simulator's "it also needs x") proves that input is needed even before any
success. It is proposed only when the name fits exactly one element, and never when a success did
without it (it would lie outside SAM's safe set): every proposal stays consistent with every
observation. A rejection already explained by a declared or named input singles nothing out.
Intent examples follow the same rule: a reply to a prompt, a control act, a text without a content
word or one heard before two intents is never an example.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..catalog.spec import CatalogSpec, Skill
from ..errors import ConcertoError
from ..planning.planner import Planner
from ..runtime.acts import control_act
from ..runtime.masking import MASK
from ..runtime.nlu import extract_values, tokens
from ..runtime.rejections import named_elements
from ..runtime.text import content_words
from .observations import CallSeen, Conversation
from .refinements import Kind, Op, Refinement, apply_refinements

EXAMPLES = 5  # conversation ids kept as evidence per refinement


@dataclass(frozen=True)
class Thresholds:
    input_successes: int = 1  # SAM: one success bounds the true preconditions (each is in the safe set)
    input_singled: int = 2  # rejections that single an element out (one proves it under SAM; two outvote noise)
    input_guess_successes: int = 5  # successes before an element may be guessed from rejections it alone explains
    input_failures: int = 3  # rejections an input must explain alone when no rejection singles it out
    input_named: int = 1  # rejections whose answer named the input while the call lacked it (a deduction)
    output_seen: int = 2  # an output the spec lacks, seen after this many successes
    output_absent: int = 10  # successes of an outcome without a declared output, and never with it
    outcome_absent: int = 30  # calls of a mode without an outcome: rule of three, its rate < 10% at 95%
    outcome_seen: int = 2  # an outcome the spec lacks, seen this often
    retry_errors: int = 2  # transient errors of a skill before its retry limit is judged
    retry_loss: float = 0.001  # the chance of losing a goal to transient errors that a limit should keep under
    retry_cap: int = 5
    slot_asked: int = 5  # conversations that asked for a slot, none of which got it
    extension_seen: int = 3  # conversations that went on from one intent to the other
    preview_missed: int = 3  # openings of an intent whose plan needs a skill S3 did not select
    examples_per_intent: int = 3


def learn(spec: CatalogSpec, conversations: Sequence[Conversation], thresholds: Thresholds = Thresholds(),
          planner: Planner | None = None) -> list[Refinement]:
    """Every refinement the conversations support, in a stable order (kind, then key)."""
    calls = [call for c in conversations for call in c.calls if _known(spec, call)]
    found = [*_inputs(spec, calls, thresholds), *_outputs(spec, calls, thresholds),
             *_outcomes(spec, calls, thresholds), *_retries(spec, conversations, thresholds),
             *_slots(spec, conversations, thresholds), *_extensions(spec, conversations, thresholds),
             *_examples(spec, conversations, thresholds)]
    if any(c.broadcasts for c in conversations):
        # What a plan needs is read from the model the other proposals make: a sketch's plan may use
        # a skill only because it lacks an input the skill really needs.
        model = [r.change for r in found if r.kind not in (Kind.INTENT_EXAMPLE, Kind.GOAL_EXTENSION, Kind.RETRY_LIMIT)]
        learned = None
        if model:
            try:
                learned = Planner.for_spec(apply_refinements(spec, model))
            except ConcertoError:
                learned = None
        found += _previews(spec, conversations, thresholds, learned or planner or Planner.for_spec(spec))
    order = list(Kind)
    return sorted(found, key=lambda r: (order.index(r.kind), r.key))


def _known(spec: CatalogSpec, call: CallSeen) -> bool:
    skill = next((s for s in spec.skills if s.name == call.skill), None)
    return skill is not None and call.mode in skill.mode_names()


def _ids(calls: Iterable[CallSeen | str]) -> list[str]:
    seen = dict.fromkeys(c if isinstance(c, str) else c.conversation for c in calls)
    return list(seen)[:EXAMPLES]


def _by_mode(calls: Iterable[CallSeen]) -> dict[tuple[str, str], list[CallSeen]]:
    grouped: dict[tuple[str, str], list[CallSeen]] = defaultdict(list)
    for call in calls:
        grouped[(call.skill, call.mode)].append(call)
    return grouped


# --- inputs (SAM) -------------------------------------------------------------------------------


def safe_preconditions(calls: Sequence[CallSeen]) -> frozenset[str] | None:
    """What every successful call had: SAM's safe precondition set; None before any success."""
    successes = [c.available for c in calls if c.status == "ok"]
    return frozenset.intersection(*successes) if successes else None


def _weakest(tied: list[str], calls: list[CallSeen]) -> list[str]:
    """Of elements that explain the same rejections, those no other one implies.

    When every call that knew `a` also knew `b` (an account number is only ever known after a
    lookup by email), needing `a` would also need `b`: the weaker requirement `b` explains the
    same rejections, and is the one proposed.
    """
    def implies(a: str, b: str) -> bool:
        return all(b in c.available for c in calls if a in c.available)

    return [x for x in tied if not any(y != x and implies(x, y) and not implies(y, x) for y in tied)]


def named_missing(spec: CatalogSpec, group: Sequence[CallSeen]) -> dict[str, list[CallSeen]]:
    """Element -> the rejected calls whose answer named it while the call lacked it.

    A name counts only when it fits exactly one element of the catalog; a named element the call
    had is a value refused, not a missing input, and is left out.
    """
    names = [e.name for e in spec.elements]
    found: dict[str, list[CallSeen]] = defaultdict(list)
    for call in group:
        if call.status != "invalid" or not call.named:
            continue
        for element in named_elements(call.named, names):
            if element not in call.available:
                found[element].append(call)
    return found


def _inputs(spec: CatalogSpec, calls: list[CallSeen], t: Thresholds) -> list[Refinement]:
    found = []
    for (skill, mode), group in sorted(_by_mode(calls).items()):
        successes = sum(c.status == "ok" for c in group)
        safe = safe_preconditions(group)
        declared = set(spec.skill(skill).mode(mode).inputs)
        rejected = [c for c in group if c.status == "invalid"]
        # Named by a rejection while absent: needed, unless a success did without it (the safe set
        # bounds every true input, so an element outside it is contradicted and never proposed).
        named = {x: by for x, by in named_missing(spec, group).items()
                 if x not in declared and (safe is None or x in safe) and len(by) >= t.input_named}
        found += _named_refinements(skill, mode, named, successes, rejected, safe)
        if safe is None or successes < t.input_successes:
            continue
        candidates = safe - declared
        # A rejected call that lacked a declared input or an input named as missing is explained by it
        # (traces kept across rounds hold calls made before an input was declared): it singles nothing out.
        explained = declared | set(named)
        lacking = [(c, candidates - c.available) for c in rejected if not (explained - c.available)]
        singling: dict[str, list[CallSeen]] = defaultdict(list)
        for call, absent in lacking:
            if len(absent) == 1:  # the only element of the safe set this rejected call lacked
                singling[next(iter(absent))].append(call)
        needed = {x: found for x, found in singling.items() if len(found) >= t.input_singled}
        singled = set(needed)
        # a guess needs a safe set narrowed by several successes
        unexplained = [(c, a) for c, a in lacking if a and not (a & singled)] \
            if successes >= t.input_guess_successes else []
        while unexplained:  # the element that alone explains the most remaining rejections
            counts = Counter(x for _, absent in unexplained for x in absent)
            count = max(counts.values())
            tied = _weakest(sorted(x for x, n in counts.items() if n == count), calls)
            if count < t.input_failures or len(tied) > 1:
                break  # too few, or the rejections cannot tell two elements apart: SAM keeps both, we propose neither
            best = tied[0]
            needed[best] = [c for c, a in unexplained if best in a]
            unexplained = [(c, a) for c, a in unexplained if best not in a]
        for element, explaining in sorted(needed.items()):
            if element in named:
                continue  # proposed above, from the rejections that named it
            # Singled out: deduced under SAM's assumptions; what doubt is left is that each of those
            # rejections had another cause, taken as even odds apiece. A guess is held at 0.7.
            deduced = element in singled
            confidence = round(min(0.99, 1 - 0.5 ** len(explaining)), 3) if deduced else 0.7
            why = (f"{len(explaining)} rejected calls lacked it and nothing else the successes all had" if deduced
                   else f"it alone explains {len(explaining)} of {len(rejected)} rejected calls")
            found.append(Refinement(
                kind=Kind.INPUT_NEEDED, key=f"input_needed {skill}.{mode} {element}",
                change={"op": Op.ADD_INPUT.value, "skill": skill, "mode": mode, "element": element},
                summary=f"{skill} ({mode}) needs {element}: all {successes} successful calls had it, and {why}",
                evidence={"successes": successes, "rejected": len(rejected), "explained": len(explaining),
                          "singled_out": deduced, "safe_set": sorted(safe),
                          "conversations": _ids(explaining)},
                confidence=confidence))
    return found


def _named_refinements(skill: str, mode: str, named: dict[str, list[CallSeen]], successes: int,
                       rejected: list[CallSeen], safe: frozenset[str] | None) -> list[Refinement]:
    found = []
    for element, naming in sorted(named.items()):
        # A body naming an absent field proves it is needed (it may not name everything needed);
        # doubt is left only for an answer that names the wrong field, taken as one in ten.
        bounded = "" if safe is None else f"; all {successes} successful calls had it"
        found.append(Refinement(
            kind=Kind.INPUT_NEEDED, key=f"input_needed {skill}.{mode} {element}",
            change={"op": Op.ADD_INPUT.value, "skill": skill, "mode": mode, "element": element},
            summary=f"{skill} ({mode}) needs {element}: {len(naming)} rejected calls named it as missing{bounded}",
            evidence={"successes": successes, "rejected": len(rejected), "explained": len(naming),
                      "named": len(naming), "singled_out": True, "safe_set": sorted(safe) if safe is not None else None,
                      "conversations": _ids(naming)},
            confidence=round(min(0.99, 1 - 0.1 ** len(naming)), 3)))
    return found


# --- outputs and outcomes -----------------------------------------------------------------------


def _outputs(spec: CatalogSpec, calls: list[CallSeen], t: Thresholds) -> list[Refinement]:
    found = []
    for (skill, mode), group in sorted(_by_mode(calls).items()):
        spec_mode = spec.skill(skill).mode(mode)
        for outcome in spec_mode.outcomes:
            after = [c for c in group if c.status == "ok" and c.outcome == outcome.name]
            seen = Counter(x for c in after for x in c.outputs)
            where = f"{skill}.{mode}.{outcome.name}"
            for element, count in sorted(seen.items()):
                if element in outcome.outputs or count < t.output_seen:
                    continue
                found.append(Refinement(
                    kind=Kind.OUTPUT_PRODUCED, key=f"output_produced {where} {element}",
                    change={"op": Op.ADD_OUTPUT.value, "skill": skill, "mode": mode, "outcome": outcome.name,
                            "element": element},
                    summary=f"{skill} ({mode}) gives {element} when {outcome.name}: in {count} of {len(after)} calls",
                    evidence={"calls": len(after), "with": count,
                              "conversations": _ids(c for c in after if element in c.outputs)},
                    confidence=round(count / len(after), 3)))
            for element in outcome.outputs:
                if seen[element] == 0 and len(after) >= t.output_absent:
                    found.append(Refinement(
                        kind=Kind.OUTPUT_MISSING, key=f"output_missing {where} {element}",
                        change={"op": Op.REMOVE_OUTPUT.value, "skill": skill, "mode": mode, "outcome": outcome.name,
                                "element": element},
                        summary=f"{skill} ({mode}) never gave {element} when {outcome.name}, in {len(after)} calls",
                        evidence={"calls": len(after), "with": 0, "conversations": _ids(after)},
                        confidence=round(1 - 3 / len(after), 3)))
    return found


def _outcomes(spec: CatalogSpec, calls: list[CallSeen], t: Thresholds) -> list[Refinement]:
    found = []
    for (skill, mode), group in sorted(_by_mode(calls).items()):
        spec_mode = spec.skill(skill).mode(mode)
        answered = [c for c in group if c.status == "ok" and c.outcome is not None]
        seen = Counter(c.outcome for c in answered)
        declared = [o.name for o in spec_mode.outcomes]
        never = [o for o in declared if seen[o] == 0]
        if len(answered) >= t.outcome_absent and len(never) < len(declared):
            for outcome in never:
                found.append(Refinement(
                    kind=Kind.OUTCOME_NEVER, key=f"outcome_never {skill}.{mode}.{outcome}",
                    change={"op": Op.REMOVE_OUTCOME.value, "skill": skill, "mode": mode, "outcome": outcome},
                    summary=f"{skill} ({mode}) never ended {outcome} in {len(answered)} calls "
                            f"(its rate is under {300 / len(answered):.0f}% with 95% confidence)",
                    evidence={"calls": len(answered), "seen": 0, "conversations": _ids(answered)},
                    confidence=round(1 - 3 / len(answered), 3)))
        for outcome, count in sorted(seen.items()):
            if outcome in declared or count < t.outcome_seen:
                continue
            with_it = [c for c in answered if c.outcome == outcome]
            outputs = sorted(set().union(*(c.outputs for c in with_it)))
            found.append(Refinement(
                kind=Kind.OUTCOME_UNLISTED, key=f"outcome_unlisted {skill}.{mode}.{outcome}",
                change={"op": Op.ADD_OUTCOME.value, "skill": skill, "mode": mode, "outcome": outcome,
                        "value": outputs},
                summary=f"{skill} ({mode}) ended {outcome} in {count} of {len(answered)} calls, "
                        f"giving {', '.join(outputs) or 'nothing'}; the spec lacks that outcome",
                evidence={"calls": len(answered), "seen": count, "outputs": outputs,
                          "conversations": _ids(with_it)},
                confidence=round(1 - 0.5 ** count, 3)))
    return found


# --- retries, slots, goals, words ---------------------------------------------------------------


def retry_limit(rate: float, streak: int, thresholds: Thresholds) -> int:
    """The fewest attempts for which transient failures lose a goal less often than `retry_loss`."""
    limit = max(1, streak + 1)
    while rate ** limit > thresholds.retry_loss and limit < thresholds.retry_cap:
        limit += 1
    return limit


def _retries(spec: CatalogSpec, conversations: Sequence[Conversation], t: Thresholds) -> list[Refinement]:
    found = []
    for skill in spec.skills:
        calls = [c for conv in conversations for c in conv.calls if c.skill == skill.name and not c.probe]
        errors = [c for c in calls if c.status == "error"]
        if len(errors) < t.retry_errors:
            continue
        rate = len(errors) / len(calls)
        streak = max(_streak(c.calls, skill) for c in conversations)
        limit = retry_limit(rate, streak, t)
        if limit <= skill.max_retries:
            continue
        found.append(Refinement(
            kind=Kind.RETRY_LIMIT, key=f"retry_limit {skill.name}",
            change={"op": Op.SET_RETRIES.value, "skill": skill.name, "value": limit},
            summary=f"{skill.name} failed transiently in {len(errors)} of {len(calls)} calls ({rate:.0%}, longest "
                    f"streak {streak}): allow {limit} unsuccessful calls instead of {skill.max_retries}",
            evidence={"calls": len(calls), "errors": len(errors), "rate": round(rate, 3), "streak": streak,
                      "conversations": _ids(errors)},
            confidence=round(1 - 0.5 ** len(errors), 3)))
    return found


def _streak(calls: list[CallSeen], skill: Skill) -> int:
    longest = current = 0
    for call in calls:
        if call.skill != skill.name:
            continue
        if call.probe:
            continue
        current = current + 1 if call.status == "error" else 0
        longest = max(longest, current)
    return longest


def _slots(spec: CatalogSpec, conversations: Sequence[Conversation], t: Thresholds) -> list[Refinement]:
    found = []
    for element in spec.elements:
        if not element.askable:
            continue
        asked = [c for c in conversations if element.name in c.asked]
        if len(asked) < t.slot_asked or any(c.asked[element.name] for c in asked):
            continue
        found.append(Refinement(
            kind=Kind.UNFILLABLE, key=f"unfillable {element.name}",
            change={"op": Op.SET_ASKABLE.value, "element": element.name, "value": False},
            summary=f"users never gave {element.name}: asked in {len(asked)} conversations, never answered",
            evidence={"asked": len(asked), "given": 0, "conversations": _ids(c.ident for c in asked)},
            confidence=round(1 - 0.5 ** len(asked), 3)))
    return found


def _extensions(spec: CatalogSpec, conversations: Sequence[Conversation], t: Thresholds) -> list[Refinement]:
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    for c in conversations:
        for first, then in zip(c.completed, c.completed[1:], strict=False):
            # Went on to `then` after `first`: not a request made in the middle of `first` (a
            # digression), which is finished first and taken up second.
            later = then in c.started and first in c.started and c.started.index(then) > c.started.index(first)
            if first != then and (later or not c.started):
                pairs[(first, then)].append(c.ident)
    intents = {i.name: i for i in spec.intents}
    found = []
    for (first, then), ids in sorted(pairs.items()):
        if len(ids) < t.extension_seen or first not in intents or then not in intents:
            continue
        if then in intents[first].extensions:
            continue
        found.append(Refinement(
            kind=Kind.GOAL_EXTENSION, key=f"goal_extension {first} {then}",
            change={"op": Op.ADD_EXTENSION.value, "intent": first, "value": then},
            summary=f"after {first}, users went on to {then} in {len(ids)} conversations: offer it",
            evidence={"seen": len(ids), "conversations": ids[:EXAMPLES]},
            confidence=round(1 - 0.5 ** len(ids), 3)))
    return found


HOW = {"unheard": "not understood, then the user asked for {intent}",
       "picked": "asked about (\"did you mean ...?\"), the user picked {intent}",
       "declined": "asked about, the user turned the offer down, then asked for {intent}"}


_STATES_VALUE = re.compile(r"\d|@|\bmy\s+(?:\w+\s+){0,3}(?:is|are|was)\s+\w", re.IGNORECASE)


def _carries_value(spec: CatalogSpec, text: str, given: frozenset[str]) -> bool:
    """Whether the request also gives a value ("I need a loan, my card type is gold"): its words cannot be told
    from the value's, and an example would teach recognition the value (here, a card) as a sign of the intent.
    The assistant's own reader says what a text gives, for the catalog's elements; a thin catalog may not
    have the element yet, so a stated fact ("my loan amount is ...") or a figure, an address or an e-mail
    counts too, and so does a value the conversation holds."""
    lowered = text.lower()
    return bool(_STATES_VALUE.search(text) or extract_values(spec, text)) or any(
        len(value) >= 3 and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", lowered) for value in given)


def _examples(spec: CatalogSpec, conversations: Sequence[Conversation], t: Thresholds) -> list[Refinement]:
    """Requests recognition missed or was unsure of, as examples of the intent the user then chose.

    Precision first: a phrase labelled with two different intents (across all conversations, or "both"
    picked) is never proposed, nor one that was ever an answer to a question, an offer or a consent
    ("no", "the second"), nor one that already is an example of any intent.
    """
    heard: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)  # (intent, text) -> (ident, how)
    meant: dict[str, set[str]] = defaultdict(set)
    replies = {text for c in conversations for text in c.replies}
    for c in conversations:
        for opening in c.openings:
            text = " ".join(opening.text.split())
            if text and MASK not in text and len(text) <= 200 and not _carries_value(spec, text, c.given):
                heard[(opening.intent, text)].append((c.ident, opening.how))
                meant[text.lower()].add(opening.intent)
    # Never an example: a reply to a prompt, a text heard before two intents, one without a content word,
    # or one already an example of any intent.
    known = {" ".join(e.lower().split()) for intent in spec.intents for e in intent.examples}
    found = []
    for intent in spec.intents:
        fresh = sorted(((text, seen) for (name, text), seen in heard.items()
                        if name == intent.name and text.lower() not in known and text.lower() not in replies
                        and len(meant[text.lower()]) == 1 and _has_content(text)), key=lambda p: (-len(p[1]), p[0]))
        for text, seen in fresh[:t.examples_per_intent]:
            ids = list(dict.fromkeys(ident for ident, _ in seen))
            hows = Counter(how for _, how in seen)
            said = "; ".join(HOW[how].format(intent=intent.name) + f" ({n}×)" for how, n in sorted(hows.items()))
            found.append(Refinement(
                kind=Kind.INTENT_EXAMPLE, key=f"intent_example {intent.name} {text}",
                change={"op": Op.ADD_EXAMPLE.value, "intent": intent.name, "value": text},
                summary=f"'{text}': {said}, in {len(ids)} conversations",
                evidence={"seen": len(ids), **{how: n for how, n in hows.items()}, "conversations": ids[:EXAMPLES]},
                confidence=round(1 - 0.5 ** len(ids), 3)))
    return found


def _has_content(text: str) -> bool:
    return bool(content_words(text)) and control_act(text) is None


def _previews(spec: CatalogSpec, conversations: Sequence[Conversation], t: Thresholds,
              planner: Planner) -> list[Refinement]:
    """Words of openings where S3 missed a skill the intent's plan uses: added to that skill's preview."""
    needs: dict[str, set[str]] = {}
    for intent in spec.intents:
        result = planner.plan(intent.goal)
        needs[intent.name] = {s.skill for s in result.steps if s.kind == "skill"} if result.solved else set()
    missed: dict[str, list[tuple[str, list[str]]]] = defaultdict(list)
    for c in conversations:
        if c.intent is None or not c.broadcasts:
            continue
        utterance, selected = c.broadcasts[0]
        for skill in sorted(needs.get(c.intent, set()) - set(selected)):
            missed[skill].append((c.ident, content_words(utterance)))
    found = []
    for skill_name, misses in sorted(missed.items()):
        skill = spec.skill(skill_name)
        if len(misses) < t.preview_missed:
            continue
        offered = set(tokens(skill.preview or ""))
        counts = Counter(w for _, words in misses for w in set(words) if w not in offered)
        words = [w for w, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n >= 0.3 * len(misses)][:5]
        if not words:
            continue
        preview = " ".join([skill.preview or "", *words]).strip()
        found.append(Refinement(
            kind=Kind.PREVIEW, key=f"preview {skill_name}",
            change={"op": Op.SET_PREVIEW.value, "skill": skill_name, "value": preview},
            summary=f"S3 did not select {skill_name} for {len(misses)} openings whose plan needs it; "
                    f"add {', '.join(words)} to its preview",
            evidence={"missed": len(misses), "words": {w: counts[w] for w in words},
                      "conversations": _ids(i for i, _ in misses)},
            confidence=round(counts[words[0]] / len(misses), 3)))
    return found
