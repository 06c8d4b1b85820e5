"""The HTTP skill contract against a real local server: answers, errors, timeouts, SSRF refusal."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
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
    "/fastapi": (422, {"detail": [{"loc": ["body", "inputs", "income"], "msg": "Field required", "type": "missing"}]}),
    "/bad-request": (400, {"error": {"message": "Missing required param: income.", "param": "income"}}),
    "/forbidden": (400, {"message": "Bad Request"}),
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


def test_a_validation_answer_naming_inputs_is_a_rejection_whose_body_the_trace_keeps(server, local):
    from orchestrator.engine.runtime.rejections import named_parameters

    for path in ("/fastapi", "/bad-request"):
        result = local.call(skill(f"{server}{path}"), "m1", {"email": "a@b.co"})
        assert result.status == "invalid" and named_parameters(result.message) == ("income",), path
    # a 400 that names nothing stays an error
    assert local.call(skill(f"{server}/forbidden"), "m1", {"email": "a@b.co"}).status == "error"


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


# --- DNS rebinding: the connection goes to the address that was checked ------------------------

class Rebinding:
    """A name whose first answer is public and every later answer is the local listener."""

    def __init__(self, public: str = "93.184.216.34"):
        self.public = public
        self.answers = 0

    def __call__(self, host: str) -> list[str]:
        self.answers += 1
        return [self.public] if self.answers == 1 else ["127.0.0.1"]


def test_a_rebinding_name_cannot_reach_a_local_listener(server, monkeypatch):
    """The system resolver answers public for the check, then 127.0.0.1: nothing may reach the listener."""
    port = int(server.rsplit(":", 1)[1])
    rebinding = Rebinding()
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.create_connection
    dialled: list[str] = []

    def getaddrinfo(host, *args, **kwargs):
        if host == "rebind.test":
            return real_getaddrinfo(rebinding("rebind.test")[0], *args, **kwargs)
        return real_getaddrinfo(host, *args, **kwargs)

    def create_connection(address, *args, **kwargs):
        dialled.append(address[0])
        if address[0] == rebinding.public:  # stands in for the public host, which is not reachable here
            raise OSError("network unreachable")
        return real_connect(address, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    before = len(RECEIVED)
    result = HttpSkills(EndpointPolicy(), timeout=0.5).call(skill(f"http://rebind.test:{port}/ok"), "m1",
                                                             {"email": "ssn 123-45-6789"})
    assert len(RECEIVED) == before  # the local listener got nothing
    assert result.status == "error"
    assert dialled and set(dialled) == {rebinding.public}


def test_the_pinned_request_keeps_the_host_name_for_the_host_header_and_tls():
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"outcome": "found", "outputs": {"name": "Ada"}})

    policy = EndpointPolicy(resolver=Rebinding())
    client = HttpSkills(policy, transport=httpx.MockTransport(answer))
    result = client.call(skill("https://skills.bank.example:8443/lookup"), "m1", {"email": "a@b.co"})
    assert result.status == "ok"
    request = seen[-1]
    assert (request.url.host, request.url.port, request.url.path) == ("93.184.216.34", 8443, "/lookup")
    assert request.headers["host"] == "skills.bank.example:8443"
    assert request.extensions["sni_hostname"] == "skills.bank.example"


def test_every_retry_is_checked_again():
    calls: list[str] = []

    def down(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.host)
        return httpx.Response(503)

    # The second answer of the name is loopback: the retry is refused, not sent there.
    result = HttpSkills(EndpointPolicy(resolver=Rebinding()), attempts=3,
                        transport=httpx.MockTransport(down)).call(skill("http://skills.example/x"), "m1", {})
    assert calls == ["93.184.216.34"]
    assert result.status == "error" and "non-public address (127.0.0.1)" in result.message


@pytest.mark.parametrize("url", [
    "http://[::7f00:1]/x",  # IPv4-compatible 127.0.0.1
    "http://[64:ff9b::a00:1]/x",  # NAT64 10.0.0.1
    "http://[::ffff:7f00:1]/x",  # IPv4-mapped
    "http://[2002:7f00:1::]/x",  # 6to4
    "http://2130706433/x",  # 127.0.0.1 as one number
    "http://0x7f.1/x",
    "http://0177.0.0.1/x",
    "http://user:secret@skills.example/x",
])
def test_disguised_addresses_are_refused_even_with_private_access(url):
    """No address in disguise passes, whatever the deployment allows, and nothing is sent."""
    sent: list[httpx.Request] = []
    policy = EndpointPolicy(allow_private=True, resolver=lambda host: ["93.184.216.34"])
    client = HttpSkills(policy, transport=httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200)))
    assert policy.refusal(url)
    assert client.call(skill(url), "m1", {}).status == "error"
    assert sent == []


@pytest.mark.parametrize("answer", ["::7f00:1", "64:ff9b::a00:1"])
def test_a_name_resolving_to_an_embedded_ipv4_address_is_refused(answer):
    assert "an IPv4 address inside an IPv6 one" in EndpointPolicy(resolver=lambda host: [answer]).refusal(
        "https://skills.example/x")
