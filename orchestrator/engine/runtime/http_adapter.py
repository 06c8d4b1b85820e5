"""Skills that call an HTTP API as its document describes it (an imported OpenAPI operation).

A skill with an `http` binding (`catalog.spec.HttpBinding`) is called at its endpoint with the
binding's method: each input goes where the binding puts it (a `{name}` path segment, a query
parameter, a field of a JSON body), the answer's fields become the outputs, and the status code
picks the outcome (`2xx` success, `4xx` failure, as the import sets them). A 5xx or a network
error is an error outcome, retried once like any HTTP skill. Credentials come from a named
secret that an admin set: the spec holds the name, `secrets` gives the value at call time, and
it is sent as a header, never logged or echoed. Every URL passes the same SSRF policy as the
other HTTP skills (`skill_http.EndpointPolicy.refusal`) before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import httpx

from ..catalog.spec import HttpBinding, Skill
from .skill_http import EndpointPolicy, pinned_client, send_with_retries, validation_rejection
from .skills import SkillResult

Secrets = Callable[[str], str | None]  # a secret's name -> its value, or None when it is not set


def _no_secrets(name: str) -> str | None:
    return None


class HttpApiSkills:
    """Calls skills bound to an HTTP API operation; every failure is a SkillResult, never an exception."""

    def __init__(self, policy: EndpointPolicy, secrets: Secrets = _no_secrets, timeout: float = 10.0,
                 attempts: int = 2, client: httpx.Client | None = None):
        self.policy, self.secrets, self.timeout = policy, secrets, timeout
        self.attempts = max(1, attempts)
        # Pinned like every HTTP skill: the address checked is the address connected to (DNS rebinding).
        self.client = client or pinned_client(policy, timeout)

    def call(self, skill: Skill, mode: str, inputs: dict[str, str]) -> SkillResult:
        binding = skill.http
        if binding is None:
            return SkillResult("error", message=f"{skill.name} has no HTTP binding")
        request, problem = self._request(skill, binding, inputs)
        if request is None:
            return SkillResult("error", message=problem)
        return send_with_retries(skill.name, self.attempts, self.timeout, send=lambda: self.client.send(request),
                                 read=lambda response: _answer(skill, mode, binding, response))

    def _request(self, skill: Skill, binding: HttpBinding, inputs: dict[str, str]) -> tuple[httpx.Request | None, str]:
        url = skill.endpoint
        query: dict[str, str] = {}
        body: dict[str, str] = {}
        for param in binding.params:
            value = inputs.get(param.element)
            if value is None:
                if param.location == "path":
                    return None, f"{skill.name} needs {param.element} for its URL"
                continue  # an optional value not known: not sent
            if param.location == "path":
                url = url.replace("{" + param.name + "}", quote(value, safe=""))
            elif param.location == "query":
                query[param.name] = value
            else:
                body[param.name] = value
        refusal = self.policy.refusal(url)
        if refusal:
            return None, refusal
        headers = {"Accept": "application/json"}
        if binding.secret:
            secret = self.secrets(binding.secret)
            if not secret:
                return None, f"the credential {binding.secret!r} of {skill.name} is not set: an admin sets it"
            headers[binding.auth_header] = f"{binding.auth_scheme} {secret}".strip()
        sends_body = binding.method not in ("get", "head", "delete", "options") and body
        request = self.client.build_request(binding.method.upper(), url, params=query or None,
                                            json=body if sends_body else None, headers=headers)
        return request, ""


def _outcome(binding: HttpBinding, status: int) -> str | None:
    for rule in binding.statuses:
        if rule.status == str(status) or (rule.status.endswith("xx") and rule.status[0] == str(status)[0]):
            return rule.outcome
    return None


def _field(body: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(body, dict):
            return None
        body = body.get(part)
    return body


def _json(response: httpx.Response) -> Any:
    try:
        return response.json() if response.content else None
    except ValueError:
        return response.text


def _answer(skill: Skill, mode: str, binding: HttpBinding, response: httpx.Response) -> SkillResult:
    name = _outcome(binding, response.status_code)
    outcome = next((o for o in skill.mode(mode).outcomes if o.name == name), None)
    if outcome is None and (rejected := validation_rejection(response.status_code, _json(response))) is not None:
        return rejected
    if outcome is None:
        return SkillResult("error", message=f"{skill.name} answered HTTP {response.status_code}, "
                                            "which no outcome rule covers")
    try:
        body: Any = response.json() if response.content else {}
    except ValueError:
        body = {}
    if isinstance(body, list) and body:  # a list answer: its first item
        body = body[0]
    fields = {o.element: o.field for o in binding.outputs}
    outputs = {x: _field(body, fields.get(x, x)) for x in outcome.outputs}
    missing = [x for x, value in outputs.items() if value in (None, "")]
    if missing:
        return SkillResult("error", message=f"{skill.name} answered without {', '.join(missing)}")
    return SkillResult("ok", outcome=outcome.name, outputs={x: str(v) for x, v in outputs.items()})
