"""What the learner reads: conversations reduced to skill calls, slot questions and goal sequences.

A conversation comes from a simulated run (`simulation.driver.Conversation`), a live session (its
trace and transcript as the chat stores them) or an imported tool-call trajectory. All three become
one `Conversation` of observations, so every rule of the learner reads one shape. Only what a live
deployment could observe is read: a trace's `missing` field (the truths' own answer) and the
simulated user's reasons are never used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..analysis.trajectories import Sample
from ..runtime.acts import control_act
from ..runtime.rejections import named_parameters


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
    """A user message that did not start a goal, and the goal the user's next request started."""

    conversation: str
    text: str
    intent: str


@dataclass
class Conversation:
    ident: str
    calls: list[CallSeen] = field(default_factory=list)
    asked: dict[str, bool] = field(default_factory=dict)  # element asked -> the user gave it (at least once)
    completed: list[str] = field(default_factory=list)  # intents reached, in order
    started: list[str] = field(default_factory=list)  # intents whose goal the assistant took up, in order
    openings: list[Opening] = field(default_factory=list)
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
    seen.completed = [frame.get("intent") for frame in (state or {}).get("completed", []) if frame.get("intent")]
    seen.openings = _openings(ident, transcript)
    seen.started = list(dict.fromkeys(m["data"]["goal"] for m in transcript if m.get("role") == "assistant"
                                      and isinstance((m.get("data") or {}).get("goal"), str)))
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


def _openings(ident: str, transcript: Sequence[Mapping[str, Any]]) -> list[Opening]:
    """User messages the assistant did not understand, then one that started a goal: the same request, reworded.

    A reply to a prompt (a question, an offer, a consent or a read-back: "yes please", "sure, why
    not") and a control act on its own ("yes", "stop") are never a request: its meaning comes from
    the prompt it answers, and the goal that follows it is a coincidence.
    """
    found: list[Opening] = []
    unheard: list[str] = []
    last_user: str | None = None
    prompted = False  # the assistant's last message waited for an answer
    answered = False  # the last user message answered a prompt
    for message in transcript:
        if message.get("role") == "user":
            last_user = message.get("text", "")
            answered = prompted or control_act(last_user) is not None
            continue
        data = message.get("data") or {}
        prompted = _prompts(message)
        if last_user is None:
            continue
        if message.get("text", "").startswith("Sorry, I did not understand"):
            if not answered:
                unheard.append(last_user)
            last_user = None
        elif data.get("goal"):
            found.extend(Opening(conversation=ident, text=text, intent=data["goal"]) for text in unheard)
            unheard, last_user = [], None
    return found


def _prompts(message: Mapping[str, Any]) -> bool:
    """An assistant message that waits for an answer: a question (with or without an element), a consent
    prompt, a read-back, or any text that ends by asking."""
    data = message.get("data") or {}
    return (message.get("kind") in ("question", "consent") or "readback" in data
            or message.get("text", "").rstrip().endswith("?"))


def _broadcasts(transcript: Sequence[Mapping[str, Any]]) -> list[tuple[str, tuple[str, ...]]]:
    """S3 turns: the user's words and the skills the selector kept (none when it said it could not help)."""
    found = []
    last_user = None
    for message in transcript:
        if message.get("role") == "user":
            last_user = message.get("text", "")
            continue
        data = message.get("data") or {}
        if last_user is None or message.get("kind") != "text":
            continue
        if "scores" in (data.get("data") or {}):
            found.append((last_user, tuple(_named(message.get("text", "")))))
            last_user = None
        elif message.get("text", "").startswith("Sorry, none of my skills"):
            found.append((last_user, ()))
            last_user = None
    return found


def _named(text: str) -> list[str]:
    # "I will use credit check, then submit loan." -> the skills' names
    body = text.removeprefix("I will use ").rstrip(".")
    return [part.strip().replace(" ", "_") for part in body.split(", then ") if part.strip()]
