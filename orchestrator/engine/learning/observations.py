"""What the learner reads: conversations reduced to skill calls, slot questions and goal sequences.

A conversation comes from a simulated run (`simulation.driver.Conversation`), a live session (its
trace and transcript as the chat stores them) or an imported tool-call trajectory. All three become
one `Conversation` of observations, so every rule of the learner reads one shape. Only what a live
deployment could observe is read: a trace's `missing` field (the truths' own answer) and the
simulated user's reasons are never used.

How a turn went is read from the typed mark beside each assistant line (`mark`: the engine's
`Reply.mark`, stored as `Message.mark` by the chat and beside each line by the simulation driver), never
from the reply's wording, which a catalog or a later release may change: "started" is the reply that took
up an intent, "not_understood" the reply to a request not understood. Transcripts stored before the
marks were marked by migration 0016 (simulated ones) and 0015-0016 (live ones).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..analysis.trajectories import Sample
from ..runtime.acts import control_act
from ..runtime.rejections import named_parameters

# The assistant lines' marks read here (`runtime.replies.ReplyMark`).
STARTED = "started"
NOT_UNDERSTOOD = "not_understood"


@dataclass(frozen=True)
class CallSeen:
    """One skill call: what the conversation knew, what was sent, and what came back."""

    conversation: str
    skill: str
    mode: str
    status: str  # ok | invalid | unfeasible | error
    outcome: str | None
    outputs: frozenset[str]
    available: frozenset[str]  # every element known at the call (the sent ones included)
    sent: frozenset[str]
    named: tuple[str, ...] = ()  # a rejected call: the parameters its answer named (runtime/rejections.py)
    probe: bool = False  # made by a simulated run's experiment, not by the conversation


@dataclass(frozen=True)
class Opening:
    """A request the recognition missed or was unsure of, labelled by what the user did next.

    `how`: "unheard" (not understood; the user's next request started `intent`), "picked" (the
    user picked `intent` from "did you mean ...?"; "both" gives two openings), "declined" (the user
    turned the offer down and the next request started `intent`).
    """

    conversation: str
    text: str
    intent: str
    how: str = "unheard"


@dataclass
class Conversation:
    ident: str
    calls: list[CallSeen] = field(default_factory=list)
    asked: dict[str, bool] = field(default_factory=dict)  # element asked -> the user gave it (at least once)
    completed: list[str] = field(default_factory=list)  # intents reached, in order
    started: list[str] = field(default_factory=list)  # intents whose goal the assistant took up, in order
    openings: list[Opening] = field(default_factory=list)
    replies: set[str] = field(default_factory=set)  # user messages that answered a question, offer or consent
    given: frozenset[str] = frozenset()  # the values the user gave (lower case), as the state remembers them
    broadcasts: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # S3: utterance, skills selected
    intent: str | None = None  # the intent the user came with, when known (simulations)


def from_trace(ident: str, trace: Sequence[Mapping[str, Any]], transcript: Sequence[Mapping[str, Any]] = (),
               state: Mapping[str, Any] | None = None, intent: str | None = None) -> Conversation:
    """A conversation from a trace and transcript in the live sessions' format (simulated ones add fields)."""
    seen = Conversation(ident=ident, intent=intent)
    for event in trace:
        data = event.get("data") or {}
        if event.get("kind") == "execution":
            seen.calls.append(_call(ident, data))
    seen.asked = _slots(trace, transcript, state)
    seen.given = frozenset(str(item.get("value", "")).lower() for item in (state or {}).get("memory", {}).values()
                           if isinstance(item, Mapping) and item.get("source") == "user")
    seen.completed = [frame.get("intent") for frame in (state or {}).get("completed", []) if frame.get("intent")]
    seen.openings, seen.replies = _openings(ident, transcript)
    seen.started = list(dict.fromkeys(m["data"]["goal"] for m in transcript if _starts(m)))
    seen.broadcasts = _broadcasts(transcript)
    return seen


def from_trajectory(sample: Sample, skills: Iterable[str], modes: Mapping[str, str] | None = None) -> Conversation:
    """An imported tool-call sequence: each call to a known skill is a call that worked with its arguments.

    A call names `skill.mode`, or only the skill: its mode is then `modes[skill]` (the skill's only
    mode), else "m1". Recorded trajectories carry no outputs or statuses, so they only ever narrow
    what a mode needs (a call made without an element proves the element is not needed), never widen it.
    """
    names = set(skills)
    modes = modes or {}
    seen = Conversation(ident=f"trajectory {sample.ident}")
    known = set(sample.memory)
    for call in sample.calls:
        name, _, mode = call.name.partition(".")
        if name not in names:
            continue
        sent = frozenset(call.arguments)
        seen.calls.append(CallSeen(conversation=seen.ident, skill=name, mode=mode or modes.get(name, "m1"), status="ok",
                                   outcome=None, outputs=frozenset(), available=frozenset(known | sent), sent=sent))
        if call.label:
            known.add(call.label)
    return seen


def _call(ident: str, data: Mapping[str, Any]) -> CallSeen:
    outputs = frozenset(data.get("outputs") or {})
    sent = frozenset(data.get("args") or data.get("sent") or data.get("inputs") or ())
    status = data.get("status") or _status(data)
    available = frozenset(data.get("available") or ()) | sent
    outcome = data.get("outcome") if status == "ok" else None
    named = named_parameters(data.get("message") or "") if status == "invalid" else ()
    return CallSeen(conversation=ident, skill=data["skill"], mode=data["mode"], status=status, outcome=outcome,
                    outputs=outputs, available=available, sent=sent, named=named, probe=bool(data.get("probe")))


def _status(data: Mapping[str, Any]) -> str:
    # Live traces before the simulation issue carry no status: the outcome field holds it on failure.
    outcome = data.get("outcome")
    return outcome if outcome in ("invalid", "unfeasible", "error") else "ok"


def _slots(trace: Sequence[Mapping[str, Any]], transcript: Sequence[Mapping[str, Any]],
           state: Mapping[str, Any] | None) -> dict[str, bool]:
    """Element -> whether the user gave it, for every element the assistant asked for."""
    asked: dict[str, bool] = {}
    for message in transcript:
        data = message.get("data") or {}
        if message.get("role") == "assistant" and message.get("kind") == "question" and data.get("element"):
            asked.setdefault(data["element"], False)
    memory = (state or {}).get("memory", {})
    for element in asked:
        item = memory.get(element)
        asked[element] = bool(item and item.get("source") == "user")
    for event in trace:  # a slot given then forgotten (an unreadable document) was still given
        data = event.get("data") or {}
        if event.get("kind") == "user" and data.get("act") == "slot" and data.get("filled"):
            asked[data.get("element", "")] = True
    return asked


def _openings(ident: str, transcript: Sequence[Mapping[str, Any]]) -> tuple[list[Opening], set[str]]:
    """Requests not understood or asked about ("did you mean A or B?"), labelled by what the user did
    next, and the user messages that answered a question, an offer or a consent.

    Only a request said with nothing asked is labelled: "no" to "did you mean", or "the second", is an
    answer, never a way of asking for the intent started next. The answers are returned so that the
    learner can refuse such a phrase wherever it was seen.
    """
    found: list[Opening] = []
    replies: set[str] = set()
    unheard: list[str] = []  # requests not understood, waiting for the request that starts something
    offer: tuple[str, tuple[str, ...]] | None = None  # a request asked about, and the intents offered
    declined: str | None = None  # a request whose offer the user has just turned down
    asking = False  # the assistant's last message asked something
    for user, answers in _turns(transcript):
        if user is None:
            asking = _asks(answers, asking)
            continue
        if asking or control_act(user) is not None:  # "yes please", "sure, why not": an answer, never a request
            replies.add(" ".join(user.lower().split()))
        started = [m["data"]["goal"] for m in answers if _starts(m)]
        again = next((_choices(m) for m in answers if _choices(m)), ())
        if offer is not None and again and not started:  # an unclear answer: the choice is asked again
            offer = (offer[0], again)
            asking = _asks(answers, asking)
            continue
        if offer is not None:  # this message answers "did you mean ...?"
            picked = [goal for goal in started if goal in offer[1]]
            found.extend(Opening(conversation=ident, text=offer[0], intent=goal, how="picked") for goal in picked)
            if not picked and started:  # "no, I need a loan"
                found.append(Opening(conversation=ident, text=offer[0], intent=started[0], how="declined"))
            declined = offer[0] if not started else None  # the next request may say what it meant
            offer = None
            asking = _asks(answers, asking)
            continue
        if started:
            if declined is not None:
                found.append(Opening(conversation=ident, text=declined, intent=started[0], how="declined"))
            found.extend(Opening(conversation=ident, text=text, intent=started[0]) for text in unheard)
            unheard = []
        elif not asking:
            if again:
                offer, unheard = (user, again), []
            elif any(m.get("mark") == NOT_UNDERSTOOD for m in answers):
                unheard.append(user)
        declined = None  # only the request right after turning an offer down says what was meant
        asking = _asks(answers, asking)
    return found, replies


def _turns(transcript: Sequence[Mapping[str, Any]]) -> list[tuple[str | None, list[Mapping[str, Any]]]]:
    """The user's messages, each with the assistant's messages that answered it (None: the greeting)."""
    turns: list[tuple[str | None, list[Mapping[str, Any]]]] = [(None, [])]
    for message in transcript:
        if message.get("role") == "user":
            turns.append((message.get("text", ""), []))
        else:
            turns[-1][1].append(message)
    return turns


def _starts(message: Mapping[str, Any]) -> bool:
    # The reply marked as taking up an intent ("Sure, let's apply for a loan."), whatever its words; a result,
    # an offer or a resumed request also name an intent but start nothing.
    return message.get("mark") == STARTED and isinstance((message.get("data") or {}).get("goal"), str)


def _choices(message: Mapping[str, Any]) -> tuple[str, ...]:
    data = message.get("data") or {}
    if message.get("kind") != "question":
        return ()
    return tuple((data.get("data") or {}).get("choices") or data.get("choices") or ())


def _asks(answers: list[Mapping[str, Any]], before: bool) -> bool:
    """Whether the turn left a question, offer or consent for the user to answer."""
    return answers[-1].get("kind") in ("question", "consent") if answers else before  # offers and read-backs too


def _broadcasts(transcript: Sequence[Mapping[str, Any]]) -> list[tuple[str, tuple[str, ...]]]:
    """S3 turns: the user's words and the skills the selector kept (none when it said it could not help),
    from the selection the reply's data holds."""
    found = []
    last_user = None
    for message in transcript:
        if message.get("role") == "user":
            last_user = message.get("text", "")
            continue
        selection = (message.get("data") or {}).get("data") or {}
        if last_user is not None and message.get("kind") == "text" and "selected" in selection:
            found.append((last_user, tuple(selection["selected"])))
            last_user = None
    return found
