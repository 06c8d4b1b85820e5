"""Values read right but outside what their element accepts: refused with what is wrong and what is
accepted, never kept or sent to a skill."""

from __future__ import annotations

from ...catalog.formats import parse_format
from ..replies import Reply
from ..session import SessionState
from .commands import CorrectSlot, SetSlot
from .frames import AskFrame
from .log import TurnLog
from .prompts import Prompts


def within_bounds(prompts: Prompts, state: SessionState, commands: list, log: TurnLog) -> tuple[list, bool]:
    """Values read right but outside what their element accepts (a past date for a booking, an
    amount over the limit) are refused with what is wrong and what is accepted, never sent to a
    skill. When the refused value answers the open question, it is asked again and the turn waits."""
    kept, asked = [], state.pending.element if isinstance(state.pending, AskFrame) else None
    waiting = False
    for command in commands:
        fmt = parse_format(prompts.spec.element(command.element).format) \
            if isinstance(command, (SetSlot, CorrectSlot)) else None
        problem = fmt.problem(command.value) if fmt is not None else None
        if problem is None:
            kept.append(command)
            continue
        what = prompts.words.element(command.element)
        why = f"{problem[:1].upper()}{problem[1:]}: {what} has to be {fmt.hint}."
        if command.element == asked:
            waiting = True  # the question stays open: asked again, no misread counted
            log.say(Reply("question", f"{why} {prompts.words.question(command.element)}", element=asked))
        else:
            log.say(Reply("text", f"I cannot use {command.value} for {what}. {why}"))
    if not waiting and len(kept) < len(commands) and not kept and state.pending is not None:
        prompts.repeat(state, log)
        waiting = True
    return kept, waiting
