"""Saying again what is pending, in the same or other words, and answering questions about it
from the catalog: what the skill is for, who receives the value, what a no leads to, whether it
can wait. After any such answer the prompt is asked again: a question never answers it."""

from __future__ import annotations

from dataclasses import replace

from ...catalog.spec import CatalogSpec
from ...planning.planner import Planner, Unsolvable
from ..explain import answer as explanation
from ..explain import decision_in_question
from ..replies import Reply, Wording
from ..session import SessionState
from .commands import Explain
from .frames import AskFrame, CheckFrame, ChoiceFrame, ConfirmFrame, ConsentFrame, OfferFrame
from .goals import foreign
from .log import TurnLog


class Prompts:
    def __init__(self, spec: CatalogSpec, planner: Planner, words: Wording):
        self.spec, self.planner, self.words = spec, planner, words

    def repeat(self, state: SessionState, log: TurnLog, opening: str = "") -> None:
        """Ask again what the assistant is waiting for (after a side question, a doubt, a "what?")."""
        pending = state.pending
        reply = self.prompt(pending) if pending is not None else None
        if reply is None:
            if opening:
                log.say(Reply("text", opening))
            return
        if opening:
            reply = Reply(reply.kind, f"{opening} {reply.text}", element=reply.element, skill=reply.skill,
                          elements=reply.elements, goal=reply.goal, data=reply.data)
        log.say(reply)

    def prompt(self, pending: object) -> Reply | None:
        if isinstance(pending, AskFrame):
            return Reply("question", self.words.question(pending.element), element=pending.element)
        if isinstance(pending, ConsentFrame):
            skill = pending.skill or pending.target
            readback = f"I will use {'; '.join(f'{self.words.element(x)}: {v}' for x, v in pending.readback.items())}."
            text = " ".join(x for x in (readback if pending.readback else "",
                                        self.words.consent(skill, pending.elements)) if x)
            return Reply("consent", text, skill=skill, elements=tuple(pending.elements))
        if isinstance(pending, OfferFrame):
            return Reply("question", self.words.offer(self.spec.intent(pending.intent)), goal=pending.intent)
        if isinstance(pending, ConfirmFrame) and pending.readback:
            values = "; ".join(f"{self.words.element(x)}: {v}" for x, v in pending.values.items())
            what = self.words.skill(pending.skill or "")
            return Reply("question", f"I will use {values}. Shall I go ahead with {what}?", skill=pending.skill,
                         data={"confirm": pending.operation, "readback": dict(pending.values)})
        if isinstance(pending, ConfirmFrame):
            return Reply("question", "Shall I go ahead?", skill=pending.skill, data={"confirm": pending.operation})
        if isinstance(pending, ChoiceFrame):
            return Reply("question", self.words.choice(pending.choices), data={"choices": list(pending.choices)})
        if isinstance(pending, CheckFrame):
            # a sensitive value is never said back, even to check it
            said = "right" if self.spec.element(pending.element).sensitive else pending.value
            return Reply("question", f"Just to check: is {self.words.element(pending.element)} {said}?",
                         element=pending.element)
        return None

    def clarify(self, state: SessionState, log: TurnLog) -> None:
        """ "What do you mean?": say what is being asked in other words, then ask again."""
        pending = state.pending
        if isinstance(pending, AskFrame):
            log.say(Reply("text", self.words.explain_question(pending.element)))
        elif isinstance(pending, ConsentFrame):
            skill = pending.skill or pending.target
            log.say(Reply("text", f"I need your permission before I send {self.words.list(pending.elements)} to "
                                  f"{self.words.skill(skill)}. Nothing is sent unless you say yes."))
        self.repeat(state, log)

    def recall(self, state: SessionState, name: str) -> Reply:
        """ "What was my email?": the value held, never a sensitive one."""
        said = self.words.element(name)
        if name not in state.memory:
            return Reply("explanation", f"I do not have {said} yet: that is what I am asking you for.", element=name)
        if self.spec.element(name).sensitive:
            return Reply("explanation", f"I have {said}, but I do not repeat sensitive values.", element=name)
        return Reply("explanation", f"{said[:1].upper()}{said[1:]} is {state.memory[name].value}.", element=name)

    # --- questions about the prompt -------------------------------------------------------------
    def about(self, state: SessionState, topic: str) -> str:
        """The answer to a question about what is pending, from the catalog."""
        pending = state.pending
        if isinstance(pending, ConsentFrame):
            return self._about_sharing(state, pending.skill or pending.target, pending.elements, topic, pending.target)
        if isinstance(pending, ConfirmFrame):
            return self._about_sharing(state, pending.skill or "", [], topic, None)
        if isinstance(pending, AskFrame):
            return self._about_value(pending.element, topic)
        if isinstance(pending, ChoiceFrame) and len(pending.choices) > 1:
            return "I cannot answer that here; first tell me which you want. Nothing happens until you do."
        if isinstance(pending, (OfferFrame, ChoiceFrame, CheckFrame)):
            return "Just say yes or no; nothing happens until you do."
        return "I cannot answer that myself."

    def _about_sharing(self, state: SessionState, skill: str, elements: list[str], topic: str,
                       target: str | None) -> str:
        what = self.words.list(elements) if elements else "the values it needs"
        who = self.words.skill(skill) if skill else "that service"
        if topic == "recipient":
            return f"Only {who} receives {what}; nothing is sent to anyone else, and nothing before you say yes."
        if topic == "refusal":
            return self._if_no(state, target, what)
        if topic == "later":
            return "Nothing is sent until you say yes. You can say no now and ask me again later."
        if topic in ("need", "purpose"):
            label = skill.replace("_", " ")
            goal = self._goal(state)
            return f"{label[:1].upper()}{label[1:]} needs {what}" + (f" to {goal}." if goal else ".")
        return f"I will share {what} with {who} only if you say yes; if you say no, nothing is shared."

    def _if_no(self, state: SessionState, target: str | None, what: str) -> str:
        frame = state.current
        if frame is None or target is None:
            return f"If you say no, I will not share {what}."
        planning = state.planning_state(frame, foreign(self.spec, self.planner, state, frame))
        other = self.planner.plan(frame.goal, replace(planning, pruned=planning.pruned | {("authorize", (target,))}))
        goal = self._goal(state)
        if isinstance(other, Unsolvable):
            return f"If you say no, I will not share {what}, and I have no other way to {goal}: the request stops."
        return f"If you say no, I will not share {what}; I will try another way to {goal}."

    def _about_value(self, element: str, topic: str) -> str:
        label = self.words.element(element)
        users = [s for s in self.spec.skills if any(element in m.inputs for m in s.modes)]
        if topic == "refusal" or topic == "later":
            return f"If you do not have {label}, say \"I don't know\" and I will look for another way."
        if topic == "recipient" and users:
            return f"{label[:1].upper()}{label[1:]} goes only to {self.words.skill(users[0].name)}."
        if users and topic in ("purpose", "need"):
            return f"I need {label} for {self.words.skill(users[0].name)}."
        return f"I cannot answer that here; I am asking for {label}."

    def _goal(self, state: SessionState) -> str:
        frame = state.current
        return self.words.goal(frame.intent, frame.goal) if frame is not None else ""

    # --- explanations ---------------------------------------------------------------------------
    def explain(self, state: SessionState, command: Explain) -> Reply:
        """ "Why did you need that?", "how did you get it?": a pronoun or plain words stand for the
        element last asked, shared or produced."""
        element = command.element
        if command.kind == "why" and (element is None or element not in state.memory):
            element = decision_in_question(self.spec, state, command.text) or element
        if element is None and command.kind != "what":
            needed = command.kind == "why" and any(w in command.text.lower() for w in ("need", "ask", "want"))
            element = self._last_element(state, "asked" if needed else command.kind)
        text = command.text if element is None else f"{command.kind} {element.replace('_', ' ')}"
        return explanation(self.spec, self.planner, state, command.kind, text)

    def _last_element(self, state: SessionState, kind: str) -> str | None:
        if isinstance(state.pending, (AskFrame, CheckFrame)) and kind in ("why", "asked"):
            return state.pending.element
        if kind == "why":
            decided = next((x for r in reversed(state.history) if r.explanation for x in r.outputs), None)
            if decided is not None:
                return decided
        produced = [x for x, held in state.memory.items() if held.source == "skill"]
        given = [x for x, held in state.memory.items() if held.source == "user"]
        pool = produced if kind == "how" else given if kind == "asked" else (given + produced)
        return max(pool, key=lambda x: state.memory[x].seq, default=None)
