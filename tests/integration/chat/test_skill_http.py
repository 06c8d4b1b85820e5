"""Skills behind HTTP in a live conversation: a real server on 127.0.0.1, in a thread.

The server answers `/weather` at once and `/slow` after a pause; it records every request, so a
test can tell that a refused endpoint was never reached.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import Client

from catalog_app.services import catalog_import, version_promote
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.services import assistant_create
from orchestrator.chat.models import TraceEvent
from orchestrator.engine.catalog.spec_io import load_catalog

pytestmark = pytest.mark.django_db
SLOW = 2.0  # seconds the slow endpoint takes; the skill timeout in these tests is far below


class SkillServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), SkillHandler)
        self.requests: list[tuple[str, dict]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class SkillHandler(BaseHTTPRequestHandler):
    server: SkillServer

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, body))
        if self.path == "/slow":
            time.sleep(SLOW)
        city = body["inputs"]["city"]
        answer = json.dumps({"outcome": "found", "outputs": {"forecast": f"sunny in {city}"}}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting: that is the point of the slow endpoint

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's signature
        pass


@pytest.fixture
def server() -> Iterator[SkillServer]:
    server = SkillServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


WEATHER = """
catalog: weather-{name}
elements:
  - {{name: city, description: your city}}
  - {{name: forecast, askable: false, description: the forecast}}
skills:
  - name: forecaster
    description: Asks the weather service for the forecast
    endpoint: "{endpoint}"
    max_retries: 1
    modes:
      - inputs: [city]
        outcomes: [{{name: found, outputs: [forecast]}}, {{name: unknown_city, outputs: []}}]
  - name: almanac
    description: Looks the season up in the almanac
    endpoint: "sim:"
    cost: 3
    modes:
      - inputs: [city]
        outcomes: [{{name: found, outputs: [forecast]}}]
    simulation: {{values: {{forecast: as usual for the season}}}}
intents:
  - name: get_forecast
    description: get the forecast
    examples: [what's the weather, weather forecast please, will it rain tomorrow]
    goal: {{known: [forecast]}}
"""


def _assistant(workspace, name: str, endpoint: str) -> Assistant:
    spec = load_catalog(WEATHER.format(name=name, endpoint=endpoint))
    version = version_promote(version=catalog_import(workspace=workspace, spec=spec), user=None)
    return assistant_create(workspace=workspace, version=version, key=f"weather-{name}")


class Chat:
    """A session with an assistant through the API, as a server-side caller (no Origin header)."""

    def __init__(self, assistant: Assistant):
        self.client = Client()
        self.id = self.client.post(f"/api/v1/assistants/{assistant.key}/sessions").json()["id"]

    def say(self, *texts: str) -> list[list[dict]]:
        """The replies to each of `texts`."""
        turns = []
        for text in texts:
            answer = self.client.post(f"/api/v1/sessions/{self.id}/messages", {"text": text},
                                      content_type="application/json")
            assert answer.status_code == 200, answer.content
            turns.append(answer.json()["replies"])
        return turns


@pytest.fixture
def local_skills(settings):
    settings.CONCERTO_SKILL_ALLOW_PRIVATE = True
    settings.CONCERTO_SKILL_TIMEOUT = 0.5


def test_a_skill_over_http_answers(workspace, server, local_skills):
    assistant = _assistant(workspace, "fast", f"{server.url}/weather")
    turns = Chat(assistant).say("what's the weather", "Paris")
    assert turns[0][-1]["element"] == "city"
    result = turns[1][-1]
    assert result["kind"] == "result" and result["data"]["values"] == {"forecast": "sunny in Paris"}
    assert server.requests == [("/weather", {"inputs": {"city": "Paris"}, "mode": "m1"})]


def test_a_slow_skill_times_out_and_the_conversation_goes_on(workspace, server, local_skills, caplog):
    assistant = _assistant(workspace, "slow", f"{server.url}/slow")
    started = time.monotonic()
    chat = Chat(assistant)
    turns = chat.say("what's the weather", "Paris")
    assert time.monotonic() - started < 2 * SLOW  # two attempts of 0.5 s, not the server's pace
    said = " ".join(reply["text"] for reply in turns[1])
    assert "Forecaster (asks the weather service for the forecast) did not work out" in said
    # The cause is logged and traced; the user hears that the service could not be reached.
    assert "could not be reached" in said and "0.5 s" not in said
    assert "did not answer within 0.5 s" in caplog.text
    assert [path for path, _ in server.requests] == ["/slow", "/slow"]  # bounded retries
    # The conversation goes on: the city is asked again, and the almanac gives the forecast.
    assert turns[1][-1]["element"] == "city"
    turns = chat.say("Paris", "what did you do?")
    assert turns[0][-1]["kind"] == "result"
    assert turns[0][-1]["data"]["values"] == {"forecast": "as usual for the season"}
    assert turns[1][0]["kind"] == "explanation" and "almanac" in turns[1][0]["text"]
    assert len(server.requests) == 2  # the forecaster, out of retries, was not called again


def test_a_private_address_is_refused_without_a_request(workspace, server, settings, caplog):
    # Authored while private addresses were allowed; the deployment then forbade them: the call
    # is refused all the same (authoring refuses it too, see security/test_skill_endpoints.py).
    settings.CONCERTO_SKILL_ALLOW_PRIVATE = True
    assistant = _assistant(workspace, "private", f"{server.url}/weather")
    settings.CONCERTO_SKILL_ALLOW_PRIVATE = False
    chat = Chat(assistant)
    turns = chat.say("what's the weather", "Paris")
    said = " ".join(reply["text"] for reply in turns[1])
    assert "Forecaster (asks the weather service for the forecast) did not work out" in said
    # Our network's layout is for the log and the studio's trace, never for anonymous users.
    assert "127.0.0.1" not in said and "non-public" not in said
    assert "host '127.0.0.1' resolves to a non-public address (127.0.0.1)" in caplog.text
    trace = TraceEvent.objects.filter(session_id=chat.id, kind="execution").values_list("data", flat=True)
    assert any("non-public address" in event["message"] for event in trace)
    assert server.requests == []


def test_a_host_outside_the_allowed_list_is_refused(workspace, server, settings, caplog):
    settings.CONCERTO_SKILL_ALLOW_PRIVATE = True
    assistant = _assistant(workspace, "listed", f"{server.url}/weather")
    settings.CONCERTO_SKILL_HOSTS = ["skills.example.com"]  # narrowed after authoring
    turns = Chat(assistant).say("what's the weather", "Paris")
    said = " ".join(r["text"] for r in turns[1])
    assert "could not be reached" in said and "allowed skill hosts" not in said
    assert "host '127.0.0.1' is not in the allowed skill hosts" in caplog.text
    assert server.requests == []
