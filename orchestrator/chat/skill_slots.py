"""How many chat turns of this process may wait on remote skills at once: per process and per assistant.

A turn calling an HTTP skill holds its web thread until the skill answers (up to
CONCERTO_SKILL_TIMEOUT x 2 attempts per call). Unbounded, slow skills take every thread of every
worker and an unrelated conversation waits in gunicorn's queue (60 concurrent 20-second calls
delayed other turns by 18 s). So a turn takes a slot at its first remote skill call and keeps it
to the end of the turn: at most CONCERTO_SKILL_TURNS_PER_PROCESS turns of a process, and
CONCERTO_SKILL_TURNS_PER_ASSISTANT of one assistant, are in remote skills at a time; the other
threads stay free for turns that need no remote skill. A turn that finds no slot stops before any
remote call (nothing of it is stored: `services.message_post`) and the API answers 503 "busy,
try again" with Retry-After. Simulated skills (`sim:`) take no slot: they do not wait.
"""

from __future__ import annotations

import math
import threading
from collections import Counter

from django.conf import settings

from orchestrator.engine.catalog.spec import Skill
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.runtime.skills import SkillInvoker, SkillResult


class SkillsBusy(ConcertoError):
    """Too many turns wait on remote skills right now; nothing of this turn ran remotely: send again."""

    def __init__(self, *, retry_after: int):
        super().__init__("the assistant is busy with other conversations; try again in a few seconds")
        self.retry_after = retry_after


def retry_after() -> int:
    """About how long until a slot frees: one skill call's timeout."""
    return max(1, math.ceil(settings.CONCERTO_SKILL_TIMEOUT))


class SkillSlots:
    """The counts of one process: turns in remote skills, in all and per assistant."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._total = 0
        self._per_assistant: Counter[str] = Counter()

    def take(self, assistant: str) -> bool:
        with self._lock:
            if (self._total >= settings.CONCERTO_SKILL_TURNS_PER_PROCESS
                    or self._per_assistant[assistant] >= settings.CONCERTO_SKILL_TURNS_PER_ASSISTANT):
                return False
            self._total += 1
            self._per_assistant[assistant] += 1
            return True

    def give_back(self, assistant: str) -> None:
        with self._lock:
            self._total -= 1
            self._per_assistant[assistant] -= 1
            if not self._per_assistant[assistant]:
                del self._per_assistant[assistant]

    def in_use(self) -> tuple[int, dict[str, int]]:
        with self._lock:
            return self._total, dict(self._per_assistant)


SLOTS = SkillSlots()


class BoundedInvoker:
    """Wraps a turn's invoker: the first remote call takes a slot for the turn, or raises SkillsBusy.

    `release()` gives the slot back; the turn's caller calls it when the turn ends, whatever happened.
    """

    def __init__(self, inner: SkillInvoker, assistant: str, slots: SkillSlots = SLOTS):
        self.inner, self.assistant, self.slots = inner, assistant, slots
        self.holding = False

    def call(self, skill: Skill, mode: str, inputs: dict[str, str]) -> SkillResult:
        if not skill.endpoint.startswith("sim:") and not self.holding:
            if not self.slots.take(self.assistant):
                raise SkillsBusy(retry_after=retry_after())
            self.holding = True
        return self.inner.call(skill, mode, inputs)

    def release(self) -> None:
        if self.holding:
            self.holding = False
            self.slots.give_back(self.assistant)
