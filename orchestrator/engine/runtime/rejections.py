"""What a rejected call names: the parameters an error body or message points at.

Real APIs answer a bad request with the fields at fault, in a handful of common shapes:

- FastAPI / pydantic: `{"detail": [{"loc": ["body", "income"], "msg": "field required", "type": "missing"}]}`;
- JSON schema validators (ajv and the like): `{"errors": [{"instancePath": "/income", ...},
  {"params": {"missingProperty": "income"}, "message": "must have required property 'income'"}]}`,
  or `{"errors": [{"field": "income"}]}`, `{"errors": [{"path": "income"}]}`, `{"errors": {"income": [...]}}`;
- RFC 9457 problem details: `{"invalid-params": [{"name": "income", "reason": "..."}]}` (also `invalid_params`);
- Stripe-like: `{"error": {"message": "Missing required param: income.", "param": "income"}}`;
- Concerto's own contract: `{"invalid": true, "message": "...", "missing": ["income"]}`;
- plain messages: "missing required parameter 'income'", "income is required", "it also needs income, ssn".

`named_parameters` turns any of them into the names they name (raw, in order); `named_elements`
maps those names onto a catalog's elements, keeping only names that fit exactly one element.
Whether a named element is *missing* (absent when the call was made) or *refused* (present, its
value not accepted) is decided by the learner, which knows what the call had.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

# Location parts that say where a field was, not which one (FastAPI's loc, JSON paths).
_PLACES = {"body", "query", "path", "header", "headers", "cookie", "form", "json", "params", "data", "$", "#", ""}
# List items of several names: "a, b and c", "a, b, c", "a or b".
_LIST = r"[`'\"]?[A-Za-z_][\w.\-]*[`'\"]?(?:\s*(?:,|\band\b|\bor\b|&)\s*[`'\"]?[A-Za-z_][\w.\-]*[`'\"]?)*"
_NAME = r"[`'\"]?([A-Za-z_][\w.\-]*)[`'\"]?"
_TEXT_PATTERNS = (
    # "missing required parameter 'x'", "Missing required param: x", "missing field x", "missing fields: a, b"
    re.compile(r"\bmissing(?:\s+required)?\s+(?:parameters?|params?|fields?|properties|property|arguments?|"
               r"inputs?|keys?|values?)\s*:?\s*(" + _LIST + ")", re.I),
    # "must have required property 'x'" (ajv), "required property 'x'", "required field x"
    re.compile(r"\brequired\s+(?:parameters?|params?|fields?|property|properties|arguments?|inputs?|keys?)\s*:?\s*("
               + _LIST + ")", re.I),
    # "'x' is required", "x is a required field", "x is missing", "x must be provided"
    re.compile(_NAME + r"\s+(?:field\s+|parameter\s+|param\s+)?(?:is|are)\s+(?:a\s+)?(?:required|missing|mandatory)",
               re.I),
    re.compile(_NAME + r"\s+(?:must|should)\s+be\s+(?:provided|given|present|specified|set)", re.I),
    # "it also needs x, y" (Concerto's simulated skills), "needs x", "requires x"
    re.compile(r"\b(?:also\s+)?(?:needs|requires)\s+(" + _LIST + ")", re.I),
    # "invalid parameter 'x'", "invalid value for field x", "x is invalid"
    re.compile(r"\binvalid\s+(?:value\s+for\s+)?(?:parameter|param|field|property|argument|input)\s*:?\s*"
               + _NAME, re.I),
    re.compile(_NAME + r"\s+(?:is|was)\s+(?:invalid|not\s+valid|malformed)", re.I),
)
_WORDS_NOT_NAMES = {"it", "this", "that", "the", "a", "an", "field", "value", "parameter", "param", "request",
                    "body", "input", "property", "and", "or", "missing", "required", "one", "all", "some", "which",
                    "you", "we", "they", "i", "he", "she", "there", "what", "something", "nothing", "fields",
                    "parameters", "params", "values", "inputs", "properties", "arguments"}


def named_parameters(body: Any) -> tuple[str, ...]:
    """The parameter names an error body names, in order, each once; () when it names none.

    `body` is a parsed JSON value, or text (JSON text is parsed first; any other text is read as a message).
    """
    found: list[str] = []
    _collect(_parsed(body), found, depth=0)
    return tuple(dict.fromkeys(n for n in found if n and n.lower() not in _WORDS_NOT_NAMES))


def named_elements(names: Iterable[str], elements: Iterable[str]) -> tuple[str, ...]:
    """The catalog elements the names name: a name counts when it fits exactly one element (any case,
    dashes, dots and camelCase read as underscores; `customer.credit_score` fits `credit_score`)."""
    by_key: dict[str, list[str]] = {}
    for element in elements:
        by_key.setdefault(_key(element), []).append(element)
    found: list[str] = []
    for name in names:
        fits = by_key.get(_key(name)) or by_key.get(_key(re.split(r"[./]", name)[-1]))
        if fits and len(fits) == 1:
            found.append(fits[0])
    return tuple(dict.fromkeys(found))


def _key(name: str) -> str:
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name.strip())
    return re.sub(r"[\s\-]+", "_", snake).lower().strip("_")


def _parsed(body: Any) -> Any:
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        text = body.strip()
        if text[:1] in ("{", "["):
            try:
                return json.loads(text)
            except ValueError:
                return text
    return body


def _collect(body: Any, found: list[str], depth: int) -> None:
    if depth > 6 or body is None:
        return
    if isinstance(body, str):
        found.extend(_from_text(body))
    elif isinstance(body, list):
        for item in body[:50]:
            _collect(item, found, depth + 1)
    elif isinstance(body, dict):
        _from_object(body, found, depth)


def _from_object(body: dict[str, Any], found: list[str], depth: int) -> None:
    before = len(found)
    _named_members(body, found, depth)
    for key in ("detail", "details", "errors", "error", "invalid-params", "invalid_params", "invalidParams",
                "violations", "fieldErrors", "field_errors"):
        value = body.get(key)
        if isinstance(value, dict) and key in ("errors", "fieldErrors", "field_errors") and not _is_error(value):
            found.extend(str(k) for k in value)  # {"errors": {"income": ["can't be blank"]}}
        else:
            _collect(value, found, depth + 1)
    # The message only when the structured members named nothing: "field required" names no field.
    message = (body.get("message") or body.get("msg") or body.get("title")) if len(found) == before else None
    if isinstance(message, str):
        found.extend(_from_text(message))


def _named_members(body: dict[str, Any], found: list[str], depth: int) -> None:
    """Members that name a field themselves: a location, a list of missing ones, a field, a path."""
    _from_parts(body.get("loc"), found)  # pydantic: the last part that names a field
    for key in ("missing", "missing_fields", "missingFields", "required"):
        value = body.get(key)
        if isinstance(value, list):
            found.extend(str(v) for v in value if isinstance(v, str))
        elif isinstance(value, str) and key != "required":
            found.append(value)
    for key in ("field", "param", "parameter", "name", "property", "propertyName", "missingProperty", "key"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            found.append(_last(value))
    for key in ("path", "instancePath", "dataPath", "pointer", "source"):
        value = body.get(key)
        if isinstance(value, str) and value.strip("/$.#"):
            found.append(_last(value))
        elif isinstance(value, dict):
            _from_object(value, found, depth + 1)
        else:
            _from_parts(value, found)
    params = body.get("params")
    if isinstance(params, dict):
        _from_object(params, found, depth + 1)


def _from_parts(value: Any, found: list[str]) -> None:
    if isinstance(value, list | tuple):
        parts = [str(p) for p in value if isinstance(p, str) and p.lower() not in _PLACES]
        if parts:
            found.append(parts[-1])


def _is_error(value: dict[str, Any]) -> bool:
    return bool({"message", "msg", "field", "param", "path", "loc", "code", "type"} & set(value))


def _last(path: str) -> str:
    parts = [p for p in re.split(r"[/.\[\]]", path.strip()) if p and p.lower() not in _PLACES and not p.isdigit()]
    return parts[-1] if parts else ""


def _from_text(text: str) -> list[str]:
    found: list[str] = []
    for pattern in _TEXT_PATTERNS:
        for match in pattern.finditer(text):
            group = match.group(1)
            for part in re.split(r"\s*(?:,|\band\b|\bor\b|&)\s*", group):
                name = part.strip().strip("`'\"").rstrip(".")
                if name:
                    found.append(name)
    return found
