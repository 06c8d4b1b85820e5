"""The learner reads how a turn went from the typed mark beside each assistant line, never from its wording:
the reply that takes up an intent is marked "started" by the engine, a simulated transcript records the mark
beside each line, and a start worded otherwise (a catalog's or a later release's words) still labels a pick."""

from __future__ import annotations

from typing import Any

import pytest

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.learning.learner import learn
from orchestrator.engine.learning.observations import Opening, from_trace
from orchestrator.engine.learning.refinements import Kind
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.runtime.replies import Reply
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills
from orchestrator.engine.runtime.turns import PlannerOrchestrator
from orchestrator.engine.simulation.driver import simulate_conversation
from orchestrator.engine.simulation.scenario import Scenario


class Chat:
    """A conversation with the planner orchestrator, kept as the chat stores it: the reply's body as its
    data, the reply's mark beside the line ("" for none)."""

    def __init__(self, spec: CatalogSpec, planner: Planner):
        self.bot = PlannerOrchestrator(spec, planner, SimulatedSkills(spec, seed=1))
        self.state = SessionState()
        self.lines: list[dict[str, Any]] = []
        self._add(self.bot.greet())

    def say(self, text: str) -> list[Reply]:
        self.lines.append({"role": "user", "kind": "user", "text": text, "data": {}, "mark": ""})
        replies = self.bot.turn(self.state, text).replies
        self._add(replies)
        return replies

    def _add(self, replies: list[Reply]) -> None:
        self.lines += [{"role": "assistant", "kind": r.kind, "text": r.text, "data": r.as_dict(), "mark": r.mark or ""}
                       for r in replies]

    def transcript(self, reworded: dict[str, str] | None = None) -> list[dict[str, Any]]:
        """The lines, the replies carrying a mark in `reworded` worded as given there."""
        reworded = reworded or {}
        return [{**line, "position": i, "text": reworded.get(line["mark"], line["text"])}
                for i, line in enumerate(self.lines)]


@pytest.fixture
def chat(banking_spec: CatalogSpec, banking_planner: Planner) -> Chat:
    return Chat(banking_spec, banking_planner)


def test_the_replies_that_take_up_an_intent_are_marked_started_and_nothing_else_is(chat):
    (loan, _) = chat.say("I need a loan")
    assert (loan.mark, loan.goal) == ("started", "apply_loan")
    digression = chat.say("what is the status of my card application")[0]
    assert (digression.mark, digression.goal) == ("started", "check_card_status")  # "... first; then ..."
    stopped, resumed, _ = chat.say("stop")
    assert (stopped.kind, stopped.goal, stopped.mark) == ("text", "check_card_status", None)
    assert (resumed.kind, resumed.goal, resumed.mark) == ("resumed", "apply_loan", None)  # resumed: no new start
    started = [line["data"]["goal"] for line in chat.lines if line["mark"] == "started"]
    assert started == ["apply_loan", "check_card_status"]
    assert from_trace("c", [], chat.transcript()).started == ["apply_loan", "check_card_status"]


def test_a_pick_and_a_request_not_understood_are_learned_whatever_the_replies_say(chat, banking_spec):
    second = chat.say("a card")[-1].data["choices"][1]
    assert chat.say("the second")[0].mark == "started"
    chat.say("stop")
    chat.say("blorp wug")  # not understood, then a request that starts
    chat.say("I need a loan")
    # Another catalog's (or a later release's) words for the same turns: only the marks tell.
    reworded = chat.transcript({"started": "OK, applying for it.", "not_understood": "Hmm, that went past me."})
    assert not any(line["text"].startswith(("Sure", "Sorry")) for line in reworded if line["mark"])
    seen = from_trace("c", [], reworded)
    assert seen.openings == [Opening("c", "a card", second, "picked"),
                             Opening("c", "blorp wug", "apply_loan", "unheard")]
    assert seen.started == [second, "apply_loan"]
    assert from_trace("c", [], chat.transcript()).openings == seen.openings  # the engine's own words: the same
    copies = [from_trace(f"c{i}", [], reworded) for i in range(2)]
    examples = {(r.change["intent"], r.change["value"]) for r in learn(banking_spec, copies)
                if r.kind is Kind.INTENT_EXAMPLE}
    assert (second, "a card") in examples


def test_a_reply_worded_like_a_start_but_not_marked_starts_nothing():
    lines = [("user", "user", "money for a boat", {}, ""),
             ("assistant", "text", "Sorry, I did not understand that.", {}, "not_understood"),
             ("user", "user", "stop", {}, ""),
             # a catalog's words for "OK, I stopped: ...": it names the intent, begins with "Sure", starts nothing
             ("assistant", "text", "Sure, I stopped: apply for a loan.", {"goal": "apply_loan"}, ""),
             ("user", "user", "I want a loan", {}, ""),
             ("assistant", "text", "Sure, let's apply for a loan.", {"goal": "apply_loan"}, "started")]
    transcript = [{"position": i, "role": role, "kind": kind, "text": text, "data": data, "mark": mark}
                  for i, (role, kind, text, data, mark) in enumerate(lines)]
    seen = from_trace("c", [], transcript)
    assert seen.openings == [Opening("c", "money for a boat", "apply_loan", "unheard")]  # labelled by the start
    unmarked_start = [{**line, "mark": ""} if line["position"] == 5 else line for line in transcript]
    assert from_trace("c", [], unmarked_start).openings == []  # no line marked started: nothing labels it
    assert from_trace("c", [], unmarked_start).started == []


def test_a_simulated_transcript_records_each_replys_mark_beside_its_line(banking_spec, banking_planner,
                                                                          realistic: Scenario):
    runs = [simulate_conversation(banking_spec, banking_planner, realistic, orchestrator="planner", seed=3, index=i)
            for i in range(20)]
    lines = [line for run in runs for line in run.transcript]
    assert all("mark" in line for line in lines)
    assert all(line["mark"] == "" for line in lines if line["role"] == "user")
    starts = [line for line in lines if line["mark"] == "started"]
    assert starts and all(line["kind"] == "text" and line["data"]["goal"] for line in starts)
    assert all("mark" not in line["data"] for line in lines)  # beside the reply's body, not in it
    # every run's intent was taken up by a marked reply
    assert all(run.intent in [line["data"]["goal"] for line in run.transcript if line["mark"] == "started"]
               for run in runs if run.outcome == "success")
