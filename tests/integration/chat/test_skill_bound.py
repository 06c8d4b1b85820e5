"""Slow skills cannot take every web thread: turns in remote skills are bounded per process and per
assistant; beyond, "busy, try again" (503 with Retry-After) before any remote call (issue 24, finding 7).

The skill server on 127.0.0.1 holds every call until the test lets it answer, so "slow" is a
state the test controls, not a duration it measures.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO

import httpx
import pytest
from django.core.management import call_command
from django.db import connections
from django.test import Client

from catalog_app.models import Workspace
from catalog_app.services import catalog_import, version_promote
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.services import assistant_create
from orchestrator.chat.models import ChatSession
from orchestrator.chat.skill_slots import SLOTS, BoundedInvoker, SkillsBusy, SkillSlots
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.runtime.skills import SkillResult
from tests.integration.live_server import gunicorn

from .conftest import DEMO_KEY
from .test_skill_http import WEATHER

HELD_AT_MOST = 60  # seconds a held call waits for the test, so a failing test cannot hang the server


class HeldSkills(ThreadingHTTPServer):
    """Answers every skill call once `release` is set; counts the calls in flight."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), HeldHandler)
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.in_flight = 0
        self.most_in_flight = 0
        self.calls = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/forecast"

    def wait_for(self, in_flight: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.in_flight < in_flight:
            assert time.monotonic() < deadline, f"{self.in_flight} skill calls in flight, {in_flight} expected"
            time.sleep(0.05)


class HeldHandler(BaseHTTPRequestHandler):
    server: HeldSkills

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.calls += 1
            self.server.in_flight += 1
            self.server.most_in_flight = max(self.server.most_in_flight, self.server.in_flight)
        self.server.release.wait(HELD_AT_MOST)
        with self.server.lock:
            self.server.in_flight -= 1
        answer = json.dumps({"outcome": "found", "outputs": {"forecast": f"sunny in {body['inputs']['city']}"}})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer.encode())

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's signature
        pass


@pytest.fixture
def held() -> Iterator[HeldSkills]:
    server = HeldSkills()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.release.set()
    server.shutdown()
    server.server_close()


def _weather(workspace: Workspace, name: str, endpoint: str) -> Assistant:
    spec = load_catalog(WEATHER.format(name=name, endpoint=endpoint))
    version = version_promote(version=catalog_import(workspace=workspace, spec=spec), user=None)
    return assistant_create(workspace=workspace, version=version, key=f"weather-{name}")


# --- the bound itself ------------------------------------------------------------------------------


class Echo:
    def call(self, skill, mode, inputs) -> SkillResult:
        return SkillResult("ok", outcome="found")


class Skill:
    def __init__(self, endpoint: str):
        self.endpoint = endpoint


def test_a_turn_takes_one_slot_at_its_first_remote_call_and_gives_it_back(settings):
    settings.CONCERTO_SKILL_TURNS_PER_PROCESS, settings.CONCERTO_SKILL_TURNS_PER_ASSISTANT = 2, 1
    slots = SkillSlots()
    first = BoundedInvoker(Echo(), "a", slots)
    first.call(Skill("sim:"), "m1", {})
    assert slots.in_use() == (0, {})  # simulated skills do not wait: no slot
    first.call(Skill("https://skills.example.com/x"), "m1", {})
    first.call(Skill("https://skills.example.com/y"), "m1", {})
    assert slots.in_use() == (1, {"a": 1})  # one per turn, however many calls
    with pytest.raises(SkillsBusy) as refused:
        BoundedInvoker(Echo(), "a", slots).call(Skill("https://skills.example.com/x"), "m1", {})
    assert refused.value.retry_after >= 1
    BoundedInvoker(Echo(), "b", slots).call(Skill("https://skills.example.com/x"), "m1", {})
    with pytest.raises(SkillsBusy):  # the process is full
        BoundedInvoker(Echo(), "c", slots).call(Skill("https://skills.example.com/x"), "m1", {})
    first.release()
    first.release()  # twice is once
    assert slots.in_use() == (1, {"b": 1})


# --- through the API (Django's test client, in threads) -------------------------------------------------


def _session(client: Client, assistant: Assistant) -> str:
    session_id = client.post(f"/api/v1/assistants/{assistant.key}/sessions").json()["id"]
    asked = client.post(f"/api/v1/sessions/{session_id}/messages", {"text": "what's the weather"},
                        content_type="application/json")
    assert asked.json()["replies"][-1]["element"] == "city"
    return session_id


def _send(session_id: str, client_id: str) -> Callable[[], object]:
    def send():
        try:
            return Client().post(f"/api/v1/sessions/{session_id}/messages", {"text": "Paris", "client_id": client_id},
                                 content_type="application/json")
        finally:
            if threading.current_thread() is not threading.main_thread():
                connections.close_all()  # this thread's own connection, or the test database stays in use
    return send


@pytest.mark.django_db(transaction=True)
def test_one_assistant_cannot_take_every_slot_and_a_refused_turn_runs_when_sent_again(workspace, held, settings):
    settings.CONCERTO_SKILL_ALLOW_PRIVATE, settings.CONCERTO_SKILL_TIMEOUT = True, 30
    settings.CONCERTO_SKILL_TURNS_PER_PROCESS, settings.CONCERTO_SKILL_TURNS_PER_ASSISTANT = 3, 1
    slow, other = _weather(workspace, "slow", held.url), _weather(workspace, "other", held.url)
    client = Client()
    first, second, third = _session(client, slow), _session(client, slow), _session(client, other)
    with ThreadPoolExecutor(2) as pool:
        held_turn: Future = pool.submit(_send(first, "a"))
        held.wait_for(1)
        refused = _send(second, "b")()  # the same assistant: over its bound
        assert refused.status_code == 503 and refused["Retry-After"] == "30"
        assert "busy" in refused.json()["detail"]
        before = ChatSession.objects.get(pk=second)
        other_turn: Future = pool.submit(_send(third, "c"))  # another assistant still has room
        held.wait_for(2)
        assert held.calls == 2  # the refused turn called nothing
        held.release.set()
        assert held_turn.result(timeout=60).status_code == 200
        assert other_turn.result(timeout=60).status_code == 200
    after = ChatSession.objects.get(pk=second)
    assert (after.message_count, after.lease_token) == (before.message_count, None)  # nothing stored, no lease
    again = _send(second, "b")()  # the widget's Retry: same client id, a turn now
    assert again.status_code == 200 and again.json()["replies"][-1]["kind"] == "result"
    assert SLOTS.in_use() == (0, {})


# --- a real server: other conversations keep their threads -------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_slow_skills_leave_gunicorn_threads_for_other_conversations(workspace, held, settings):
    """4 threads, 2 of them at most in remote skills: 6 slow turns at once leave room for a demo turn."""
    settings.CONCERTO_SKILL_ALLOW_PRIVATE = True  # to author the skill on 127.0.0.1
    call_command("load_demo", stdout=StringIO())
    slow = _weather(workspace, "held", held.url)
    environment = {"GUNICORN_THREADS": "4", "CONCERTO_SKILL_TURNS_PER_PROCESS": "2",
                   "CONCERTO_SKILL_TURNS_PER_ASSISTANT": "2", "CONCERTO_SKILL_ALLOW_PRIVATE": "true",
                   "CONCERTO_SKILL_TIMEOUT": "60", "CONCERTO_CHAT_RATE": "100000", "NLU_WARM_UP": "true"}
    with gunicorn(**environment) as base, httpx.Client(base_url=base, timeout=90) as http:
        def session(key: str, first: str) -> str:
            session_id = http.post(f"/api/v1/assistants/{key}/sessions").json()["id"]
            assert http.post(f"/api/v1/sessions/{session_id}/messages", json={"text": first}).status_code == 200
            return session_id

        weather = [session(slow.key, "what's the weather") for _ in range(6)]
        demo = session(DEMO_KEY, "I'd like to apply for a loan")

        def paris(session_id: str) -> httpx.Response:
            with httpx.Client(base_url=base, timeout=90) as own:
                return own.post(f"/api/v1/sessions/{session_id}/messages", json={"text": "Paris"})

        with ThreadPoolExecutor(len(weather)) as pool:
            turns = [pool.submit(paris, session_id) for session_id in weather]
            held.wait_for(2)
            # The turns over the bound are refused while the first two still wait on the skill...
            done = _first_done(turns, 4, timeout=30)
            assert [future.result().status_code for future in done] == [503] * 4
            assert all(future.result().headers["Retry-After"] == "60" for future in done)
            # ... and an unrelated conversation is answered meanwhile (on the old code it queued
            # behind four threads held by the skill, until the test gave up).
            unrelated = http.post(f"/api/v1/sessions/{demo}/messages", json={"text": "ada@example.com"}, timeout=30)
            assert unrelated.status_code == 200 and unrelated.json()["replies"][-1]["element"] == "ssn"
            assert held.in_flight == 2 and held.most_in_flight == 2
            held.release.set()
            answered = [future.result(timeout=90) for future in turns if future not in done]
    assert [r.status_code for r in answered] == [200, 200]
    assert all(r.json()["replies"][-1]["kind"] == "result" for r in answered)


def _first_done(futures: list[Future], count: int, timeout: float) -> list[Future]:
    """The first `count` of `futures` to finish; fails when fewer than that finish within `timeout`."""
    deadline = time.monotonic() + timeout
    while sum(future.done() for future in futures) < count:
        assert time.monotonic() < deadline, f"{sum(f.done() for f in futures)} answers, {count} expected"
        time.sleep(0.05)
    return [future for future in futures if future.done()]
