"""A turn runs outside any database transaction, holding its session's lease (issue 10, finding 6).

A skill endpoint that never answers keeps its turn waiting for the skill timeout: meanwhile no
transaction is open and the session row is not locked (another worker's turns, the purge, the
inspector go on), a second message to the same session gets a clear 409 after a short wait, and
a lease left by a worker killed mid-turn lapses and is taken over; a turn whose lease was taken
over writes nothing. Threads have their own connections, so locks are PostgreSQL's.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone

from orchestrator.chat import services as chat_services
from orchestrator.chat.models import ChatSession, Message
from orchestrator.chat.services import SessionBusy, message_post, session_create

from .conftest import DEMO_ORIGIN
from .test_skill_http import _assistant

pytestmark = pytest.mark.django_db(transaction=True)
LOAN, EMAIL = "I'd like to apply for a loan", "ada@example.com"


class Hanging:
    """An endpoint that takes connections and never answers a byte; `called` is set on the first."""

    def __init__(self) -> None:
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/forecast"
        self.called = threading.Event()
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:  # closed: the test is over
                return
            self.held.append(conn)
            self.called.set()


@pytest.fixture
def hanging_endpoint() -> Iterator[Hanging]:
    hanging = Hanging()
    yield hanging
    hanging.listener.close()
    for conn in hanging.held:
        conn.close()


class Background:
    """message_post in a thread, with its own connection; the result or the error it raised."""

    def __init__(self, **kwargs: object):
        self.result: list[dict] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, kwargs=kwargs)
        self.thread.start()

    def _run(self, **kwargs: object) -> None:
        try:
            self.result = message_post(**kwargs)
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            self.error = exc
        finally:
            connection.close()

    def join(self) -> None:
        self.thread.join(timeout=60)
        assert not self.thread.is_alive()


def _open_transactions() -> int:
    """Connections to the test database inside a transaction but not running a statement."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND state LIKE 'idle in transaction%%' AND pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


def _wait_for_lease(session_id: object) -> None:
    deadline = time.monotonic() + 10
    while not ChatSession.objects.filter(pk=session_id, lease_token__isnull=False).exists():
        assert time.monotonic() < deadline, "the turn never took the lease"
        time.sleep(0.02)


def _positions(session_id: object) -> list[int]:
    return list(Message.objects.filter(session_id=session_id).order_by("position").values_list("position", flat=True))


def test_a_hanging_skill_holds_no_transaction_and_no_row_lock(workspace, hanging_endpoint, settings):
    settings.CONCERTO_SKILL_ALLOW_PRIVATE = True
    settings.CONCERTO_SKILL_TIMEOUT = 1.5
    settings.CONCERTO_CHAT_LEASE_WAIT = 0.3
    assistant = _assistant(workspace, "hanging", hanging_endpoint.url)
    session, _ = session_create(assistant=assistant)
    message_post(session_id=session.pk, text="what's the weather")  # asks for the city

    started = time.monotonic()
    turn = Background(session_id=session.pk, text="Paris", client_id="paris")
    assert hanging_endpoint.called.wait(timeout=10)  # the skill call is under way; no answer comes
    time.sleep(0.1)
    assert _open_transactions() == 0
    with transaction.atomic():  # the old code held this row lock through the skill call
        ChatSession.objects.select_for_update(nowait=True).get(pk=session.pk)
    # A second message to the same session waits briefly, then is told to come back.
    with pytest.raises(SessionBusy) as busy:
        message_post(session_id=session.pk, text="what's the weather", client_id="again")
    assert busy.value.retry_after >= 1
    assert time.monotonic() - started < settings.CONCERTO_SKILL_TIMEOUT  # the skill still hangs

    turn.join()
    assert turn.error is None, turn.error
    assert "could not be reached" in turn.result[0]["text"]  # the timeout, told; the conversation goes on
    stored = ChatSession.objects.get(pk=session.pk)
    assert stored.lease_token is None and stored.lease_until is None
    assert _positions(session.pk) == list(range(stored.message_count))
    # The message that was turned away runs now.
    assert message_post(session_id=session.pk, text="what's the weather", client_id="again")


def test_the_api_answers_409_with_retry_after_while_the_session_is_busy(demo, settings):
    settings.CONCERTO_CHAT_LEASE_WAIT = 0.2
    client = Client(enforce_csrf_checks=True)
    session_id = client.post("/api/v1/assistants/demo-banking/sessions", headers={"Origin": DEMO_ORIGIN}).json()["id"]
    ChatSession.objects.filter(pk=session_id).update(lease_token=uuid.uuid4(),
                                                     lease_until=timezone.now() + timedelta(seconds=30))
    answer = client.post(f"/api/v1/sessions/{session_id}/messages", {"text": LOAN, "client_id": "m1"},
                         content_type="application/json", headers={"Origin": DEMO_ORIGIN})
    assert answer.status_code == 409
    assert int(answer["Retry-After"]) >= 1
    assert answer["Access-Control-Allow-Origin"] == DEMO_ORIGIN
    assert "Retry-After" in answer["Access-Control-Expose-Headers"]
    assert "still being answered" in answer.json()["detail"]
    assert _positions(session_id) == [0]  # the greeting only: nothing of the message was written


def test_a_lease_left_by_a_killed_worker_lapses_and_is_taken_over(demo):
    session, _ = session_create(assistant=demo)
    # A worker killed mid-turn: its lease stays, lapsed; it wrote nothing.
    ChatSession.objects.filter(pk=session.pk).update(lease_token=uuid.uuid4(),
                                                     lease_until=timezone.now() - timedelta(seconds=1))
    replies = message_post(session_id=session.pk, text=LOAN, client_id="m1")
    assert replies[-1]["element"] == "email"
    stored = ChatSession.objects.get(pk=session.pk)
    assert stored.lease_token is None
    assert _positions(session.pk) == list(range(stored.message_count))


@pytest.fixture
def slow_loan(monkeypatch) -> None:
    """The loan request's turn takes 0.6 s (in the engine, as a slow skill would); others run at once."""
    real = chat_services.runtime_for

    def slow(assistant, *, seed):
        runtime = real(assistant, seed=seed)
        turn = runtime.bot.turn

        def timed(state, text):
            if text == LOAN:
                time.sleep(0.6)
            return turn(state, text)

        runtime.bot.turn = timed
        return runtime

    monkeypatch.setattr(chat_services, "runtime_for", slow)


def test_a_turn_overtaken_after_its_lease_lapsed_writes_nothing(demo, slow_loan, settings):
    settings.CONCERTO_CHAT_LEASE_SECONDS = 0.2  # shorter than the slow turn
    session, _ = session_create(assistant=demo)
    overtaken = Background(session_id=session.pk, text=LOAN, client_id="loan")
    _wait_for_lease(session.pk)
    time.sleep(0.3)  # the lease lapsed; the turn still runs
    other = message_post(session_id=session.pk, text="what is the status of my card application", client_id="b")
    overtaken.join()

    assert isinstance(overtaken.error, SessionBusy)
    assert "went on without it" in str(overtaken.error)
    texts = list(Message.objects.filter(session=session, role="user").values_list("text", flat=True))
    assert texts == ["what is the status of my card application"]
    stored = ChatSession.objects.get(pk=session.pk)
    assert _positions(session.pk) == list(range(stored.message_count)) == list(range(1 + 1 + len(other)))
    assert stored.lease_token is None
    # The widget sends it again with the same id: it did not land, so it runs now.
    settings.CONCERTO_CHAT_LEASE_SECONDS = 60
    again = message_post(session_id=session.pk, text=LOAN, client_id="loan")
    assert again and again == message_post(session_id=session.pk, text=LOAN, client_id="loan")


def test_a_copy_sent_while_its_turn_runs_waits_and_gets_the_same_replies(demo, slow_loan):
    session, _ = session_create(assistant=demo)
    first = Background(session_id=session.pk, text=LOAN, client_id="loan")
    _wait_for_lease(session.pk)
    copy = message_post(session_id=session.pk, text=LOAN, client_id="loan")
    first.join()
    assert first.error is None
    assert copy == first.result
    assert Message.objects.filter(session=session, role="user").count() == 1


def test_a_copy_of_the_session_read_before_another_turn_landed_is_not_used(demo):
    """The API passes the session it read for its checks; a turn landing in between makes it stale."""
    from orchestrator.chat.selectors import session_get

    session, _ = session_create(assistant=demo)
    stale = session_get(session_id=session.pk)
    message_post(session_id=session.pk, text=LOAN, client_id="loan")  # lands after `stale` was read
    replies = message_post(session_id=session.pk, text=EMAIL, client_id="email", known=stale)
    assert replies[-1]["element"] == "ssn"  # the email answered the loan's question: the fresh state
    assert message_post(session_id=session.pk, text=LOAN, client_id="loan", known=stale)[-1]["element"] == "email"
    stored = ChatSession.objects.get(pk=session.pk)
    assert _positions(session.pk) == list(range(stored.message_count))
    assert list(Message.objects.filter(session=session, role="user").values_list("client_id", flat=True)) == [
        "loan", "email"]
