"""Skills behind HTTP: the contract, timeouts, bounded retries, and a guard against SSRF.

Contract: POST JSON `{"inputs": {...}, "mode": name}`; the answer is
`{"outcome": name, "outputs": {...}, "explanation": {...}?}`. A 422 answer carries either
`{"invalid": true}` (the skill rejects this invocation) or `{"unfeasible": element}` (a value
cannot work). Anything else that is not a well-formed outcome is an error outcome.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..catalog.spec import Skill
from .skills import SkillResult

Resolver = Callable[[str], list[str]]


def resolve(host: str) -> list[str]:
    return sorted({info[4][0] for info in socket.getaddrinfo(host, None)})


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
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return f"'{url}' is not an http(s) URL"
        host = parts.hostname.lower()
        if self.allowed_hosts and not any(_host_matches(host, pattern) for pattern in self.allowed_hosts):
            return f"host '{host}' is not in the allowed skill hosts"
        if self.allow_private:
            return None
        try:
            addresses = [ipaddress.ip_address(a) for a in self.resolver(host)]
        except (OSError, ValueError):
            return f"host '{host}' does not resolve"
        for address in addresses:
            if not address.is_global or address.is_multicast:
                return f"host '{host}' resolves to a non-public address ({address})"
        return None


def _host_matches(host: str, pattern: str) -> bool:
    pattern = pattern.lower()
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


class HttpSkills:
    """Calls skills over HTTP; every failure becomes a SkillResult, never an exception."""

    def __init__(self, policy: EndpointPolicy, timeout: float = 10.0, attempts: int = 2,
                 client: httpx.Client | None = None):
        self.policy = policy
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.client = client or httpx.Client(timeout=httpx.Timeout(timeout, connect=min(3.0, timeout)),
                                             follow_redirects=False)

    def call(self, skill: Skill, mode: str, inputs: dict[str, str]) -> SkillResult:
        refusal = self.policy.refusal(skill.endpoint)
        if refusal:
            return SkillResult("error", message=refusal)
        last = "no answer"
        for attempt in range(self.attempts):
            try:
                response = self.client.post(skill.endpoint, json={"inputs": inputs, "mode": mode})
            except httpx.TimeoutException:
                last = f"{skill.name} did not answer within {self.timeout:g} s"
            except httpx.HTTPError as exc:
                last = f"{skill.name} could not be reached ({type(exc).__name__})"
            else:
                if response.status_code < 500:
                    return _read_answer(skill, mode, response)
                last = f"{skill.name} failed (HTTP {response.status_code})"
            if attempt + 1 < self.attempts:
                time.sleep(0.2 * (attempt + 1))  # a moment for a restarting service
        return SkillResult("error", message=last)


def _read_answer(skill: Skill, mode: str, response: httpx.Response) -> SkillResult:
    try:
        body: Any = response.json()
    except ValueError:
        return SkillResult("error", message=f"{skill.name} answered with something that is not JSON")
    if not isinstance(body, dict):
        return SkillResult("error", message=f"{skill.name} answered with JSON that is not an object")
    if response.status_code == 422 and body.get("invalid"):
        return SkillResult("invalid", message=str(body.get("message", "")))
    if response.status_code == 422 and isinstance(body.get("unfeasible"), str):
        return SkillResult("unfeasible", element=body["unfeasible"], message=str(body.get("message", "")))
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
