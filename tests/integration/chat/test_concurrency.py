"""Two messages to one session at once are serialised by the session's row lock: no lost update.

Each thread has its own database connection (Django opens one per thread), so the lock is
PostgreSQL's, as between two web workers. A turn is slowed down while it holds the lock, so
that the other message certainly arrives in the middle of it.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from orchestrator.chat import services as chat_services
from orchestrator.chat.models import ChatSession, Message
from orchestrator.chat.services import message_post, session_create
from orchestrator.chat.vault import state_open

HOLD = 0.4  # seconds a turn keeps the lock, longer than the other thread needs to arrive
LOAN, EMAIL = "I'd like to apply for a loan", "ada@example.com"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def spans(monkeypatch) -> list[tuple[float, float, str]]:
    """Each turn's (start, end, text), recorded while the session row is locked."""
    recorded: list[tuple[float, float, str]] = []
    real = chat_services.runtime_for

    def slow(assistant, *, seed):
        runtime = real(assistant, seed=seed)
        turn = runtime.bot.turn

        def timed(state, text):
            start = time.monotonic()
            time.sleep(HOLD)
            log = turn(state, text)
            recorded.append((start, time.monotonic(), text))
            return log

        runtime.bot.turn = timed
        return runtime

    monkeypatch.setattr(chat_services, "runtime_for", slow)
    return recorded


def _post_together(posts: list[tuple[object, str]]) -> dict[str, list[dict]]:
    """Post each (session id, text) from its own thread, all released at once by a barrier."""
    barrier = threading.Barrier(len(posts))
    replies: dict[str, list[dict]] = {}
    errors: list[BaseException] = []

    def post(session_id: object, text: str) -> None:
        try:
            barrier.wait(timeout=10)
            replies[text] = message_post(session_id=session_id, text=text)
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)
        finally:
            connection.close()  # this thread's connection, so the test database can be dropped

    threads = [threading.Thread(target=post, args=pair) for pair in posts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return replies


def test_two_messages_to_one_session_run_one_after_the_other(demo, spans):
    session, _ = session_create(assistant=demo)
    replies = _post_together([(session.pk, LOAN), (session.pk, EMAIL)])

    (first_start, first_end, first), (second_start, _, second) = sorted(spans)
    assert second_start >= first_end  # the lock made the second wait for the whole first turn
    assert {first, second} == {LOAN, EMAIL}
    # Whichever came first, the second turn saw its effect: the loan goes on to the SSN.
    assert replies[second][-1]["element"] == "ssn"
    state = state_open(ChatSession.objects.get(pk=session.pk).state)
    assert [f.intent for f in state.goals] == ["apply_loan"]
    assert state.memory["email"].value == EMAIL
    assert [h.skill for h in state.history] == ["lookup_customer"]
    assert state.pending is not None and state.pending.element == "ssn"
    # One transcript, in the order the turns ran, with no position used twice or skipped.
    messages = list(Message.objects.filter(session=session).order_by("position"))
    assert [m.position for m in messages] == list(range(len(messages)))
    assert [m.text for m in messages if m.role == "user"] == [first, second]
    assert len(messages) == 1 + 2 + len(replies[LOAN]) + len(replies[EMAIL])


def test_two_sessions_do_not_wait_for_each_other(demo, spans):
    one, _ = session_create(assistant=demo)
    two, _ = session_create(assistant=demo)
    _post_together([(one.pk, LOAN), (two.pk, LOAN)])

    (first_start, first_end, _), (second_start, _, _) = sorted(spans)
    assert second_start < first_end  # only the session row is locked, not the assistant's
