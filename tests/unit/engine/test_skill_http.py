"""The HTTP skill contract against a real local server: answers, errors, timeouts, SSRF refusal."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from orchestrator.engine.catalog.spec import Mode, Outcome, Skill
from orchestrator.engine.runtime.skill_http import EndpointPolicy, HttpSkills

ANSWERS: dict[str, tuple[int, object, float]] = {
    "/ok": (200, {"outcome": "found", "outputs": {"name": "Ada", "extra": "dropped"}, "explanation": {"x": 0.5}}),
    "/invalid": (422, {"invalid": True, "message": "no such document type"}),
    "/unfeasible": (422, {"unfeasible": "email", "message": "unknown domain"}),
    "/bad-outcome": (200, {"outcome": "maybe"}),
    "/not-json": (200, "<html>"),
    "/down": (503, {}),
    "/slow": (200, {"outcome": "found", "outputs": {"name": "Ada"}}),
}
RECEIVED: list[tuple[str, dict]] = []


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        RECEIVED.append((self.path, body))
        status, answer = ANSWERS[self.path][:2]
        if self.path == "/slow":
            time.sleep(1.0)
        payload = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def skill(url: str) -> Skill:
    return Skill(name="lookup", endpoint=url, modes=(Mode(inputs=("email",), outcomes=(
        Outcome(name="found", outputs=("name",)), Outcome(name="not_found"))),))


@pytest.fixture
def local() -> HttpSkills:
    return HttpSkills(EndpointPolicy(allow_private=True), timeout=0.3, attempts=2)


def test_a_good_answer(server, local):
    result = local.call(skill(f"{server}/ok"), "m1", {"email": "a@b.co"})
    assert (result.status, result.outcome, result.outputs) == ("ok", "found", {"name": "Ada"})
    assert result.explanation == {"x": 0.5}
    assert RECEIVED[-1] == ("/ok", {"inputs": {"email": "a@b.co"}, "mode": "m1"})


@pytest.mark.parametrize(("path", "status", "fragment"), [
    ("/invalid", "invalid", "no such document type"),
    ("/unfeasible", "unfeasible", "unknown domain"),
    ("/bad-outcome", "error", "unknown outcome 'maybe'"),
    ("/not-json", "error", "not JSON"),
    ("/down", "error", "HTTP 503"),
    ("/slow", "error", "did not answer within 0.3 s"),
])
def test_every_failure_is_a_result(server, local, path, status, fragment):
    result = local.call(skill(f"{server}{path}"), "m1", {"email": "a@b.co"})
    assert result.status == status and fragment in result.message


def test_failures_are_retried_a_bounded_number_of_times(server, local):
    before = len([p for p, _ in RECEIVED if p == "/down"])
    local.call(skill(f"{server}/down"), "m1", {})
    assert len([p for p, _ in RECEIVED if p == "/down"]) - before == 2


def test_connection_refused_is_an_error():
    result = HttpSkills(EndpointPolicy(allow_private=True), timeout=0.5).call(skill("http://127.0.0.1:9/x"), "m1", {})
    assert result.status == "error" and "could not be reached" in result.message


def test_private_addresses_are_refused_unless_allowed(server):
    before = len(RECEIVED)
    result = HttpSkills(EndpointPolicy()).call(skill(f"{server}/ok"), "m1", {})
    assert result.status == "error" and "non-public address (127.0.0.1)" in result.message
    assert len(RECEIVED) == before  # nothing was sent


@pytest.mark.parametrize(("url", "reason"), [
    ("ftp://files.example.com/x", "is not an http(s) URL"),
    ("http://10.0.0.5/x", "non-public address (10.0.0.5)"),
    ("http://169.254.169.254/latest/meta-data", "non-public address"),
    ("https://evil.example.org/x", "not in the allowed skill hosts"),
])
def test_policy_refusals(url, reason):
    policy = EndpointPolicy(allowed_hosts=["*.example.org", "10.0.0.5", "169.254.169.254", "files.example.com"],
                            resolver=lambda host: [host] if host[0].isdigit() else ["93.184.216.34"])
    if "evil" in url:
        policy.allowed_hosts = ["api.example.com"]
    assert reason in (policy.refusal(url) or "")


def test_allowlisted_public_host_passes():
    policy = EndpointPolicy(allowed_hosts=["*.bank.example"], resolver=lambda host: ["93.184.216.34"])
    assert policy.refusal("https://skills.bank.example/score") is None
