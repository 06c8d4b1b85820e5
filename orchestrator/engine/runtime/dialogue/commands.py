"""The commands a message is understood as: one small frozen dataclass per kind of move.

A command generator returns a list of these and changes nothing; the executor applies them in a
fixed order (stop, questions, corrections, the answer to what is pending, new requests). A
generator may return anything: the executor alone decides what a command may do in the state at
hand (an `Affirm` grants a consent only when a consent is pending and nothing else in the turn
asks or hesitates).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PromptTopic = Literal["purpose", "recipient", "refusal", "later", "need", "general"]
ExplainKind = Literal["what", "how", "why"]


@dataclass(frozen=True)
class StartIntent:
    """A request for one of the catalog's intents ("I want to apply for a loan")."""

    intent: str
    said: str = ""  # the words of the request: they may pick one way of running a skill


@dataclass(frozen=True)
class SetSlot:
    """A value for an element, answered or volunteered. `doubt`: given with "I think", "not sure"."""

    element: str
    value: str
    doubt: bool = False


@dataclass(frozen=True)
class CorrectSlot:
    """A value replacing one already held ("actually make it 12 grand", "not 15, 12")."""

    element: str
    value: str


@dataclass(frozen=True)
class Affirm:
    """An explicit yes to what is pending, and nothing else."""


@dataclass(frozen=True)
class Deny:
    """An explicit no to what is pending."""


@dataclass(frozen=True)
class ChooseOption:
    """The options picked in a "did you mean A or B?" question; several for "both"."""

    options: tuple[str, ...]


@dataclass(frozen=True)
class AskAboutPrompt:
    """A question about what is being asked ("who will see it?", "what happens if I say no?")."""

    topic: PromptTopic
    question: str


@dataclass(frozen=True)
class Explain:
    """ "What did you do?", "how did you get it?", "why was it refused?". `element` may be None
    (the executor then takes the element last asked, shared or produced)."""

    kind: ExplainKind
    element: str | None
    text: str


@dataclass(frozen=True)
class Recall:
    """ "What is my handset?": a value the session holds (or the one it is asking for)."""

    element: str


@dataclass(frozen=True)
class Help:
    """ "What can you do?" """


@dataclass(frozen=True)
class Clarify:
    """ "What do you mean?": say the pending question in other words."""


@dataclass(frozen=True)
class Stop:
    """Stop the current request."""


@dataclass(frozen=True)
class Hesitate:
    """Doubt, a condition or a hold at a yes/no prompt ("wait", "not sure yet", "only if ...")."""

    text: str


@dataclass(frozen=True)
class CannotAnswer:
    """ "I don't know" to a question for an element."""

    element: str


@dataclass(frozen=True)
class Unclear:
    """Nothing recognised (chit-chat, or a reply that fits nothing pending)."""

    text: str


Command = (StartIntent | SetSlot | CorrectSlot | Affirm | Deny | ChooseOption | AskAboutPrompt | Explain | Recall
           | Help | Clarify | Stop | Hesitate | CannotAnswer | Unclear)

# Commands that ask the assistant something: in a turn holding one, nothing is granted or answered.
QUESTIONS = (AskAboutPrompt, Explain, Recall, Help, Clarify)


def asks(commands: list[Command]) -> bool:
    return any(isinstance(c, QUESTIONS) for c in commands)


def describe(command: Command) -> str:
    """A command in one line, as the bench and the trace print it: `SetSlot(loan_amount=12000.00)`."""
    name = type(command).__name__
    if isinstance(command, (SetSlot, CorrectSlot)):
        return f"{name}({command.element}={command.value}{', doubt' if getattr(command, 'doubt', False) else ''})"
    if isinstance(command, StartIntent):
        return f"{name}({command.intent})"
    if isinstance(command, ChooseOption):
        return f"{name}({'+'.join(command.options)})"
    if isinstance(command, AskAboutPrompt):
        return f"{name}({command.topic})"
    if isinstance(command, Explain):
        return f"{name}({command.kind}{', ' + command.element if command.element else ''})"
    if isinstance(command, (Recall, CannotAnswer)):
        return f"{name}({command.element})"
    return name
