"""Skills behind HTTP: the contract, timeouts, bounded retries, and a guard against SSRF.

Contract: POST JSON `{"inputs": {...}, "mode": name}`; the answer is
`{"outcome": name, "outputs": {...}, "explanation": {...}?}`. A 422 answer carries either
`{"invalid": true}` (the skill rejects this invocation) or `{"unfeasible": element}` (a value
cannot work). Anything else that is not a well-formed outcome is an error outcome.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..catalog.endpoints import IPAddress, address_refusal, endpoint_refusal, ip_literal, policy_refusal
from ..catalog.spec import Skill
from .rejections import named_parameters
from .skills import SkillResult

Resolver = Callable[[str], list[str]]


def resolve(host: str) -> list[str]:
    return sorted({info[4][0] for info in socket.getaddrinfo(host, None)})


class EndpointRefused(httpx.TransportError):
    """The policy refused the endpoint; raised before any connection is opened."""


@dataclass
class EndpointPolicy:
    """Which endpoints a catalog's skills may reach.

    `allowed_hosts`: host names (or `*.example.com`, or `*` for any); empty means any public host.
    `allow_private`: let skills reach loopback and private addresses (a local skill server).
    """

    allowed_hosts: list[str] = field(default_factory=list)
    allow_private: bool = False
    resolver: Resolver = resolve

    def refusal(self, url: str) -> str | None:
        """Why `url` may not be called, or None when it may."""
        try:
            self.address(url)
        except EndpointRefused as exc:
            return str(exc)
        return None

    def address(self, url: str) -> IPAddress | None:
        """The one address a call to `url` must connect to, checked; None when any will do.

        Raises EndpointRefused. The address is what the connection is pinned to: resolving the
        name again to connect would let a name with a short lifetime (DNS rebinding) pass the
        check as public and then lead to a private address.
        """
        refusal = policy_refusal(url, allowed_hosts=self.allowed_hosts, allow_private=self.allow_private)
        if refusal:
            raise EndpointRefused(refusal)
        if self.allow_private:
            return None
        host = (urlsplit(url).hostname or "").lower()
        literal = ip_literal(host)
        try:
            addresses = [literal] if literal else [ipaddress.ip_address(a) for a in self.resolver(host)]
        except (OSError, ValueError, UnicodeError):
            raise EndpointRefused(f"host '{host}' does not resolve") from None
        if not addresses:
            raise EndpointRefused(f"host '{host}' does not resolve")
        for address in addresses:
            refusal = address_refusal(host, address)
            if refusal:
                raise EndpointRefused(refusal)
        return addresses[0]


class PinnedTransport(httpx.BaseTransport):
    """Checks every request against the policy and connects to the address that was checked.

    The URL's host becomes that address; the Host header (set from the original URL) and the
    TLS server name (`sni_hostname`, which is also the name the certificate is verified against)
    keep the host name, so virtual hosts and certificates work as before.
    """

    def __init__(self, policy: EndpointPolicy, inner: httpx.BaseTransport):
        self.policy = policy
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        address = self.policy.address(str(request.url))
        if address is not None:
            host = request.url.host
            request.url = request.url.copy_with(host=str(address))
            request.extensions = {**request.extensions, "sni_hostname": host}
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


class HttpSkills:
    """Calls skills over HTTP; every failure becomes a SkillResult, never an exception.

    `transport` is the one that opens connections (httpx's own by default); every request goes
    through the policy's check and pinning first.
    """

    def __init__(self, policy: EndpointPolicy, timeout: float = 10.0, attempts: int = 2,
                 transport: httpx.BaseTransport | None = None):
        self.policy = policy
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.client = pinned_client(policy, timeout, transport)

    def call(self, skill: Skill, mode: str, inputs: dict[str, str]) -> SkillResult:
        refusal = endpoint_refusal(skill.endpoint)  # before httpx, which would only say "unsupported"
        if refusal:
            return SkillResult("error", message=refusal)
        return send_with_retries(
            skill.name, self.attempts, self.timeout,
            send=lambda: self.client.post(skill.endpoint, json={"inputs": inputs, "mode": mode}),
            read=lambda response: _read_answer(skill, mode, response),
        )


def pinned_client(policy: EndpointPolicy, timeout: float, transport: httpx.BaseTransport | None = None) -> httpx.Client:
    """An HTTP client for skill calls: every request checked by `policy` and sent to the address checked.

    No proxies from the environment: a proxy would resolve the name itself, unchecked.
    """
    pinned = PinnedTransport(policy, transport or httpx.HTTPTransport())
    return httpx.Client(timeout=httpx.Timeout(timeout, connect=min(3.0, timeout)),
                        follow_redirects=False, transport=pinned, trust_env=False)


def send_with_retries(name: str, attempts: int, timeout: float, *, send: Callable[[], httpx.Response],
                      read: Callable[[httpx.Response], SkillResult]) -> SkillResult:
    """One skill call with bounded retries: a 5xx or a network error is tried again, a refusal never.

    Every failure is a SkillResult, never an exception: a failing skill is an outcome of the turn.
    """
    last = "no answer"
    for attempt in range(attempts):
        try:
            response = send()
        except EndpointRefused as exc:
            return SkillResult("error", message=str(exc))
        except httpx.TimeoutException:
            last = f"{name} did not answer within {timeout:g} s"
        except httpx.HTTPError as exc:
            last = f"{name} could not be reached ({type(exc).__name__})"
        else:
            if response.status_code < 500:
                return read(response)
            last = f"{name} failed (HTTP {response.status_code})"
        if attempt + 1 < attempts:
            time.sleep(0.2 * (attempt + 1))  # a moment for a restarting service
    return SkillResult("error", message=last)


def rejection_text(body: Any) -> str:
    """A rejection's body as the trace keeps it: its message alone when that is all it says, else its JSON."""
    if isinstance(body, dict) and set(body) <= {"invalid", "message"}:
        return str(body.get("message", ""))
    return json.dumps(body, separators=(",", ":"), default=str)[:2000]


def validation_rejection(status: int, body: Any) -> SkillResult | None:
    """An answer 400 or 422 naming the inputs at fault (FastAPI's detail, a schema's errors...): these
    inputs are rejected, not a passing fault, and the body stays for the learner; None for any other."""
    if status in (400, 422) and named_parameters(body):
        return SkillResult("invalid", message=rejection_text(body))
    return None


def _read_answer(skill: Skill, mode: str, response: httpx.Response) -> SkillResult:
    try:
        body: Any = response.json()
    except ValueError:
        return SkillResult("error", message=f"{skill.name} answered with something that is not JSON")
    if not isinstance(body, dict):
        return SkillResult("error", message=f"{skill.name} answered with JSON that is not an object")
    if response.status_code == 422 and body.get("invalid"):
        return SkillResult("invalid", message=rejection_text(body))
    if response.status_code == 422 and isinstance(body.get("unfeasible"), str):
        return SkillResult("unfeasible", element=body["unfeasible"], message=str(body.get("message", "")))
    if (rejected := validation_rejection(response.status_code, body)) is not None:
        return rejected
    if response.status_code >= 400:
        return SkillResult("error", message=f"{skill.name} refused the call (HTTP {response.status_code})")
    outcomes = skill.mode(mode).outcomes
    outcome = next((o for o in outcomes if o.name == body.get("outcome")), None)
    if outcome is None:
        return SkillResult("error", message=f"{skill.name} answered with an unknown outcome {body.get('outcome')!r}")
    outputs = body.get("outputs") or {}
    if not isinstance(outputs, dict):
        return SkillResult("error", message=f"{skill.name} answered with outputs that are not an object")
    kept = {x: str(outputs[x]) for x in outcome.outputs if outputs.get(x) not in (None, "")}
    explanation = body.get("explanation")
    weights = ({str(k): float(v) for k, v in explanation.items() if isinstance(v, int | float)}
               if isinstance(explanation, dict) else None)
    return SkillResult("ok", outcome=outcome.name, outputs=kept, explanation=weights or None)
