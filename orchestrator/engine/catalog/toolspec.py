"""Tool specs in, catalog skills out: OpenAPI 3 documents and function-calling specs.

Two steps, kept apart so each is reusable:

1. `parse_tools` (or `parse_openapi` / `parse_function_specs`) reads a document into `ToolSpec`s:
   tool names, inputs and outputs exactly as the document writes them. Anything malformed is a
   `SpecError` whose issues name the place (`paths./customers.get.responses`, `[2].parameters`).
2. `propose` turns tools into catalog elements and skills (names made valid, formats and
   sensitivity guessed from the schemas, existing elements reused, near misses flagged), for a
   person to review; `apply_proposal` adds the chosen part to a spec.

Function specs follow the function-calling style used by NESTFUL and OpenAI tools: a list of
`{name, description, parameters | query_parameters | arguments, output_parameters}`, where parameters are a
JSON-schema object, a mapping of name to schema (or to a type name), or a list of `{name, ...}`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..errors import Issue, SpecError
from .checks import MAX_NAME, check_name, duplicates
from .spec import CatalogSpec, Element, HttpBinding, HttpOutput, HttpParam, HttpStatus, Mode, Outcome, Skill
from .spec_io import decode
from .suggest import did_you_mean, normalize

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
# `arguments`: how the original SGD-derived NESTFUL specs list inputs.
INPUT_KEYS = ("parameters", "query_parameters", "arguments")
OUTPUT_KEYS = ("output_parameters",)


@dataclass(frozen=True)
class ToolParam:
    """One input or output of a tool, as the document describes it."""

    name: str
    type: str = ""
    description: str = ""
    required: bool = False
    format: str = ""  # the schema's `format`: email, date, date-time, password...
    enum: tuple[str, ...] = ()
    pattern: str = ""
    # A number's bounds (`minimum`/`maximum`, exclusive ones for integers as the next whole number): the
    # element's format then refuses an amount out of range before any call (`number:1..10`).
    minimum: float | None = None
    maximum: float | None = None
    sensitive: bool = False  # `format: password`, `writeOnly` or `x-sensitive`
    # Dotted paths of the fields inside an object (or inside a list's items), as far as the schema
    # spells them out: `author` (a list of objects) has `id` and `name`.
    fields: tuple[str, ...] = ()
    location: str = ""  # an OpenAPI operation's: path, query or body; "" for a function spec


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str = ""
    inputs: tuple[ToolParam, ...] = ()
    outputs: tuple[ToolParam, ...] = ()
    source: str = ""  # where it came from: `GET /customers/{id}`, `tools[3]`
    requirements_known: bool = False  # the document said which inputs are required
    method: str = ""  # an OpenAPI operation's HTTP method; "" for a function spec
    url: str = ""  # its server's URL and path (`https://api.example.com/pets/{petId}`)

    def required_inputs(self) -> tuple[ToolParam, ...]:
        """The inputs a call cannot do without: the required ones when the document says, else all."""
        return tuple(p for p in self.inputs if p.required) if self.requirements_known else self.inputs


# --- reading documents -----------------------------------------------------------------------------


def load_tools(text: str | bytes, filename: str = "") -> list[ToolSpec]:
    """Tools from JSON or YAML text: an OpenAPI 3 document or a list of function specs."""
    return parse_tools(decode(text, None, filename))


def parse_tools(data: Any) -> list[ToolSpec]:
    if isinstance(data, Mapping) and ("openapi" in data or "swagger" in data):
        return parse_openapi(data)
    return parse_function_specs(data)


def _check(issues: list[Issue]) -> None:
    if issues:
        raise SpecError(issues)


# --- function specs ------------------------------------------------------------------------------


def parse_function_specs(data: Any) -> list[ToolSpec]:
    """Tools from a list of function specs (also `{"tools": [...]}` or `{"functions": [...]}`)."""
    items, prefix = _function_list(data)
    issues: list[Issue] = []
    tools: list[ToolSpec] = []
    places: list[str] = []
    for i, item in enumerate(items):
        path = f"{prefix}[{i}]"
        if isinstance(item, Mapping) and isinstance(item.get("function"), Mapping):
            item, path = item["function"], f"{path}.function"  # OpenAI's {"type": "function", "function": {...}}
        if not isinstance(item, Mapping):
            issues.append(Issue(path, "a function spec must be a mapping with 'name' and 'parameters'"))
            continue
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            issues.append(Issue(f"{path}.name", "every function spec needs a 'name'"))
            continue
        inputs, required_known = _function_params(item, INPUT_KEYS, path, issues)
        outputs, _ = _function_params(item, OUTPUT_KEYS, path, issues)
        description = item.get("description") or ""
        tools.append(ToolSpec(name.strip(), str(description).strip(), inputs, outputs, f"function {name.strip()}",
                              required_known))
        places.append(path)
    issues += duplicates(((t.name, p) for t, p in zip(tools, places, strict=True)), "tool")
    _check(issues)
    if not tools:
        raise SpecError([Issue(prefix, "the document lists no functions")])
    return tools


def _function_list(data: Any) -> tuple[list[Any], str]:
    if isinstance(data, Mapping):
        for key in ("tools", "functions"):
            if isinstance(data.get(key), list):
                return data[key], key
        if "name" in data:
            return [data], ""
        raise SpecError([Issue("", "expected an OpenAPI 3 document or a list of function specs "
                                   "(each with 'name', 'description', 'parameters', 'output_parameters')")])
    if isinstance(data, list):
        return data, ""
    raise SpecError([Issue("", "expected an OpenAPI 3 document or a list of function specs")])


def _function_params(
    item: Mapping[str, Any], keys: Sequence[str], path: str, issues: list[Issue]
) -> tuple[tuple[ToolParam, ...], bool]:
    params: list[ToolParam] = []
    required_known = False
    for key in keys:
        if item.get(key) is None:
            continue
        found, known = _params(item[key], f"{path}.{key}", issues)
        params += found
        required_known = required_known or known
    return tuple(dict((p.name, p) for p in params).values()), required_known


def _params(value: Any, path: str, issues: list[Issue]) -> tuple[list[ToolParam], bool]:
    """Parameters written as a JSON-schema object, a name -> schema mapping, or a list."""
    if isinstance(value, Mapping) and isinstance(value.get("properties"), Mapping):
        required = value.get("required")
        names = set(required) if isinstance(required, list) else set()
        params = [_param(n, s, n in names) for n, s in value["properties"].items()]
        return params, isinstance(required, list)
    if isinstance(value, Mapping):
        if value.get("type") == "object":  # an object schema without properties takes nothing
            return [], False
        params = [_param(str(n), s, _flag(s)) for n, s in value.items()]
        return params, any(isinstance(s, Mapping) and "required" in s for s in value.values())
    if isinstance(value, list):
        params = []
        for j, entry in enumerate(value):
            if isinstance(entry, str) and entry.strip():
                params.append(ToolParam(entry.strip()))
            elif isinstance(entry, Mapping) and isinstance(entry.get("name"), str) and entry["name"].strip():
                params.append(_param(entry["name"].strip(), entry, _flag(entry)))
            else:
                issues.append(Issue(f"{path}[{j}]", "a parameter needs a 'name'"))
        known = any(isinstance(e, Mapping) and "required" in e for e in value)
        return params, known
    issues.append(Issue(path, "parameters must be a JSON schema, a mapping of names, or a list"))
    return [], False


def _flag(schema: Any) -> bool:
    return bool(schema.get("required")) if isinstance(schema, Mapping) else False


def _param(name: str, schema: Any, required: bool) -> ToolParam:
    if not isinstance(schema, Mapping):  # {"city": "string"}
        return ToolParam(name, str(schema or ""), required=required)
    enum = schema.get("enum")
    minimum, maximum = _number_bounds(schema)
    return ToolParam(
        name=name,
        type=str(schema.get("type") or ""),
        description=str(schema.get("description") or "").strip(),
        required=required,
        format=str(schema.get("format") or ""),
        enum=tuple(str(v) for v in enum) if isinstance(enum, list) else (),
        pattern=str(schema.get("pattern") or ""),
        minimum=minimum,
        maximum=maximum,
        sensitive=bool(schema.get("format") == "password" or schema.get("writeOnly") or schema.get("x-sensitive")),
        fields=tuple(_nested_fields(schema)),
    )


def _number_bounds(schema: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """`minimum`/`maximum`, and the exclusive ones in both spellings (JSON Schema's numbers, OpenAPI
    3.0's booleans beside `minimum`): an integer's exclusive bound becomes the next whole number; a
    decimal's is kept inclusive (the edge value itself is then the skill's to refuse)."""
    def number(value: Any) -> float | None:
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    step = 1 if schema.get("type") == "integer" else 0
    low, high = number(schema.get("minimum")), number(schema.get("maximum"))
    if schema.get("exclusiveMinimum") is True and low is not None:
        low += step
    elif (exclusive := number(schema.get("exclusiveMinimum"))) is not None:
        low = exclusive + step if low is None else max(low, exclusive + step)
    if schema.get("exclusiveMaximum") is True and high is not None:
        high -= step
    elif (exclusive := number(schema.get("exclusiveMaximum"))) is not None:
        high = exclusive - step if high is None else min(high, exclusive - step)
    return low, high


def _nested_fields(schema: Mapping[str, Any], prefix: str = "", depth: int = 0) -> list[str]:
    """Inline properties only (a `$ref` inside an output is not followed): enough to check paths."""
    if schema.get("type") == "array" and isinstance(schema.get("items"), Mapping):
        schema = schema["items"]
    props = schema.get("properties")
    if not isinstance(props, Mapping) or depth > 5:
        return []
    found = []
    for name, inner in props.items():
        found.append(f"{prefix}{name}")
        if isinstance(inner, Mapping):
            found += _nested_fields(inner, f"{prefix}{name}.", depth + 1)
    return found


# --- OpenAPI 3 -----------------------------------------------------------------------------------


def parse_openapi(data: Any) -> list[ToolSpec]:
    """One tool per operation: parameters and JSON body properties in, response properties out."""
    if not isinstance(data, Mapping):
        raise SpecError([Issue("", "an OpenAPI document must be a mapping")])
    if "openapi" not in data:
        raise SpecError([Issue("swagger", "Swagger 2 documents are not supported: convert the document to OpenAPI 3")])
    if not str(data["openapi"]).startswith("3"):
        raise SpecError([Issue("openapi", f"unsupported OpenAPI version '{data['openapi']}' (3.x expected)")])
    paths = data.get("paths")
    if not isinstance(paths, Mapping) or not paths:
        raise SpecError([Issue("paths", "the document has no paths, so there are no operations to import")])
    refs = _Refs(data)
    servers = data.get("servers")
    first = servers[0] if isinstance(servers, list) and servers and isinstance(servers[0], Mapping) else {}
    server = str(first.get("url") or "").rstrip("/")
    issues: list[Issue] = []
    tools: list[ToolSpec] = []
    places: list[str] = []
    for route, item in paths.items():
        where = f"paths.{route}"
        if not isinstance(item, Mapping):
            issues.append(Issue(where, "a path item must be a mapping of operations"))
            continue
        shared = item.get("parameters") or []
        for method in HTTP_METHODS:
            if method in item:
                tool = _operation(refs, route, method, item[method], shared, f"{where}.{method}", issues, server)
                if tool is not None:
                    tools.append(tool)
                    places.append(f"{where}.{method}.operationId")
    issues += duplicates(((t.name, p) for t, p in zip(tools, places, strict=True)), "tool")
    _check(issues)
    if not tools:
        raise SpecError([Issue("paths", "the document has no operations (get, post, ...) to import")])
    return tools


class _Refs:
    """Local `$ref`s (`#/components/schemas/Customer`) resolved against the document."""

    def __init__(self, document: Mapping[str, Any]):
        self.document = document

    def resolve(self, value: Any, path: str, issues: list[Issue], depth: int = 0) -> Any:
        if not isinstance(value, Mapping) or "$ref" not in value:
            return value
        ref = value["$ref"]
        if depth > 20 or not isinstance(ref, str) or not ref.startswith("#/"):
            issues.append(Issue(path, f"cannot follow $ref '{ref}' (only local references like #/components/...)"))
            return None
        node: Any = self.document
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or part not in node:
                issues.append(Issue(path, f"$ref '{ref}' points to nothing in the document"))
                return None
            node = node[part]
        return self.resolve(node, path, issues, depth + 1)


def _operation(
    refs: _Refs, route: str, method: str, op: Any, shared: Any, path: str, issues: list[Issue], server: str = ""
) -> ToolSpec | None:
    if not isinstance(op, Mapping):
        issues.append(Issue(path, "an operation must be a mapping"))
        return None
    name = op.get("operationId") or f"{method}_{route}"
    description = str(op.get("summary") or op.get("description") or "").strip()
    inputs = _operation_inputs(refs, op, shared, path, issues)
    outputs = _operation_outputs(refs, op, path, issues)
    source = f"{method.upper()} {route}"
    return ToolSpec(str(name), description, tuple(inputs), tuple(outputs), source, requirements_known=True,
                    method=method, url=f"{server}{route}")


def _operation_inputs(
    refs: _Refs, op: Mapping[str, Any], shared: Any, path: str, issues: list[Issue]
) -> list[ToolParam]:
    params: dict[str, ToolParam] = {}
    listed = [*(shared if isinstance(shared, list) else []), *(op.get("parameters") or [])]
    for j, raw in enumerate(listed):
        param = refs.resolve(raw, f"{path}.parameters[{j}]", issues)
        if not isinstance(param, Mapping) or not isinstance(param.get("name"), str):
            issues.append(Issue(f"{path}.parameters[{j}]", "a parameter needs a 'name' and an 'in'"))
            continue
        if param.get("in") in ("header", "cookie"):
            continue  # transport details (auth tokens, tracing), not something a user tells the assistant
        schema = refs.resolve(param.get("schema") or {}, f"{path}.parameters[{j}].schema", issues) or {}
        merged = {**schema, "description": param.get("description") or schema.get("description", "")}
        required = bool(param.get("required")) or param.get("in") == "path"
        params[param["name"]] = replace(_param(param["name"], merged, required), location=str(param.get("in")))
    body = refs.resolve(op.get("requestBody"), f"{path}.requestBody", issues)
    if isinstance(body, Mapping):
        schema = _json_schema(refs, body.get("content"), f"{path}.requestBody.content", issues)
        for param in _properties(refs, schema, f"{path}.requestBody", issues, required_all=False):
            params.setdefault(param.name, replace(param, location="body"))
    return list(params.values())


def _operation_outputs(refs: _Refs, op: Mapping[str, Any], path: str, issues: list[Issue]) -> list[ToolParam]:
    responses = op.get("responses")
    if not isinstance(responses, Mapping) or not responses:
        issues.append(Issue(f"{path}.responses", "an operation needs its responses"))
        return []
    codes = sorted(str(c) for c in responses if str(c).startswith("2"))
    codes = codes or (["default"] if "default" in responses else [])
    if not codes:
        return []  # only error responses: the call produces nothing to remember
    code = codes[0]
    key = next(c for c in responses if str(c) == code)
    response = refs.resolve(responses[key], f"{path}.responses.{code}", issues)
    if not isinstance(response, Mapping):
        return []
    schema = _json_schema(refs, response.get("content"), f"{path}.responses.{code}.content", issues)
    return _properties(refs, schema, f"{path}.responses.{code}", issues, required_all=True)


def _json_schema(refs: _Refs, content: Any, path: str, issues: list[Issue]) -> Any:
    if not isinstance(content, Mapping) or not content:
        return None
    media = next((m for m in content if "json" in str(m)), next(iter(content)))
    entry = content[media]
    return refs.resolve(entry.get("schema"), f"{path}.{media}.schema", issues) if isinstance(entry, Mapping) else None


def _properties(refs: _Refs, schema: Any, path: str, issues: list[Issue], required_all: bool) -> list[ToolParam]:
    """The fields of an object schema (of its items, for an array); outputs count as all given."""
    if isinstance(schema, Mapping) and schema.get("type") == "array":
        schema = refs.resolve(schema.get("items"), f"{path}.items", issues)
    props, required = _object_fields(refs, schema, path, issues)
    params = []
    for name, raw in props.items():
        prop = refs.resolve(raw, f"{path}.properties.{name}", issues) or {}
        params.append(_param(str(name), prop, required_all or name in required))
    return params


def _object_fields(
    refs: _Refs, schema: Any, path: str, issues: list[Issue], depth: int = 0
) -> tuple[dict[str, Any], set[str]]:
    """Properties and required names of an object schema, with `allOf` parts merged.

    `oneOf` and `anyOf` parts are merged too, as optional: any of their fields may come back.
    """
    schema = refs.resolve(schema, path, issues)
    if not isinstance(schema, Mapping) or depth > 10:
        return {}, set()
    props = dict(schema.get("properties") or {}) if isinstance(schema.get("properties"), Mapping) else {}
    required = {str(n) for n in schema.get("required") or [] if isinstance(n, str)}
    for key in ("allOf", "oneOf", "anyOf"):
        for k, part in enumerate(schema.get(key) or []):
            more, needed = _object_fields(refs, part, f"{path}.{key}[{k}]", issues, depth + 1)
            props.update({name: value for name, value in more.items() if name not in props})
            required |= needed if key == "allOf" else set()
    return props, required


# --- proposing catalog content -------------------------------------------------------------------


@dataclass(frozen=True)
class Proposal:
    """What importing some tools would add to a catalog, for a person to review first."""

    elements: tuple[Element, ...]  # new elements
    skills: tuple[Skill, ...]
    reused: tuple[str, ...]  # elements the catalog already has, used as they are
    names: dict[str, str] = field(default_factory=dict)  # a parameter's name -> its element, where they differ
    suggestions: dict[str, list[str]] = field(default_factory=dict)  # new element -> close existing ones
    warnings: tuple[str, ...] = ()


def element_name(raw: str) -> str:
    """A valid element or skill name for a tool's name: `customerEmail` -> `customer_email`."""
    name = normalize(raw) or "value"
    if check_name(name, ""):  # reserved word, or too long
        name = f"{name[: MAX_NAME - 6]}_value" if len(name) > MAX_NAME - 6 else f"{name}_value"
    return name


def _element_format(param: ToolParam) -> str | None:
    if param.enum:
        return "enum:" + "|".join(v.replace("|", "/") for v in param.enum)
    if param.format == "email":
        return "email"
    if param.format in ("date", "date-time"):
        return "date"
    if param.pattern:
        return f"regex:{param.pattern}"
    if param.type in ("integer", "number", "int", "float"):
        if param.minimum is None and param.maximum is None:
            return "number"
        return f"number:{_bound(param.minimum)}..{_bound(param.maximum)}"
    return None


def _bound(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def propose(tools: Sequence[ToolSpec], spec: CatalogSpec | None = None) -> Proposal:
    """Elements and skills for `tools`, reusing the elements `spec` already has."""
    existing = {e.name for e in spec.elements} if spec else set()
    taken_skills = {s.name for s in spec.skills} if spec else set()
    params: dict[str, ToolParam] = {}
    names: dict[str, str] = {}
    for tool in tools:
        # Optional inputs too: dropped, an API's options (a filter, a page size) could never be sent.
        for param in (*tool.inputs, *tool.outputs):
            name = names.get(param.name) or element_name(param.name)
            if name in taken_skills:  # an element may not share a name with a skill
                name = f"{name}_value"
            names[param.name] = name
            params.setdefault(name, param)
    inputs_anywhere = {names[p.name] for t in tools for p in t.inputs}
    new = [n for n in params if n not in existing]
    elements = tuple(
        Element(name=n, description=params[n].description, sensitive=params[n].sensitive,
                # A value only ever produced (a score, a status) is not something to ask the user.
                askable=n in inputs_anywhere, format=_element_format(params[n]))
        for n in new
    )
    skills, warnings = _skills(tools, names, taken_skills, existing | set(params))
    suggestions = {n: found for n in new if (found := did_you_mean(n, existing))}
    renamed = {raw: name for raw, name in names.items() if raw != name}
    return Proposal(elements, tuple(skills), tuple(n for n in params if n in existing), renamed, suggestions,
                    tuple(warnings))


def _skills(
    tools: Sequence[ToolSpec], names: Mapping[str, str], taken: set[str], elements: set[str]
) -> tuple[list[Skill], list[str]]:
    skills: list[Skill] = []
    warnings: list[str] = []
    for tool in tools:
        name = element_name(tool.name)
        if name in elements:  # a skill may not share a name with an element
            name = f"{name}_skill"
        if name in taken:
            warnings.append(f"the catalog already has a skill '{name}': tool '{tool.name}' is left out")
            continue
        taken.add(name)
        required = tool.required_inputs()
        optional = [p for p in tool.inputs if p not in required]
        about = " ".join(part for part in (tool.description, f"(imported from {tool.source})") if part)
        outcomes = (
            Outcome(name="success", outputs=tuple(dict.fromkeys(names[p.name] for p in tool.outputs))),
            # Every call can fail; without this outcome the planner would count on success.
            Outcome(name="failure"),
        )
        modes = [Mode(inputs=tuple(dict.fromkeys(names[p.name] for p in required)), outcomes=outcomes)]
        if optional:  # a second way to call it, that sends the optional values too when they are known
            modes.append(Mode(name="with_options", outcomes=outcomes,
                              inputs=tuple(dict.fromkeys(names[p.name] for p in (*required, *optional)))))
            warnings.append(f"{name}: optional inputs {', '.join(p.name for p in optional)} go in a second "
                            "mode, with_options")
        if tool.method:
            skills.append(Skill(name=name, description=about, modes=tuple(modes), endpoint=tool.url,
                                http=_binding(tool, names)))
        else:
            skills.append(Skill(name=name, description=about, modes=tuple(modes)))
    return skills, warnings


def _location(param: ToolParam) -> Literal["path", "query", "body"]:
    return "path" if param.location == "path" else "query" if param.location == "query" else "body"


def _binding(tool: ToolSpec, names: Mapping[str, str]) -> HttpBinding:
    """How to call an OpenAPI operation: each input where the document puts it, outputs by field, and
    the outcome by status (2xx success, 4xx failure; a 5xx is an error the runtime may retry)."""
    return HttpBinding(
        method=tool.method,  # type: ignore[arg-type]  # one of HTTP_METHODS, as parsed
        params=tuple(HttpParam(element=names[p.name], name=p.name, location=_location(p)) for p in tool.inputs),
        outputs=tuple(HttpOutput(element=names[p.name], field=p.name) for p in tool.outputs),
        statuses=(HttpStatus(status="2xx", outcome="success"), HttpStatus(status="4xx", outcome="failure")),
    )


def apply_proposal(
    spec: CatalogSpec,
    proposal: Proposal,
    skills: Iterable[str] | None = None,
    replace: Mapping[str, str] | None = None,
) -> CatalogSpec:
    """`spec` with the proposal's skills (those named in `skills`, else all) and the elements they use.

    `replace` maps a proposed new element to an existing one to use instead (the review's
    "did you mean `email`?"). The result is not validated here: parse it as any other spec.
    """
    chosen = set(skills) if skills is not None else {s.name for s in proposal.skills}
    swap = dict(replace or {})
    picked = [_renamed(s, swap) for s in proposal.skills if s.name in chosen]
    used = {x for s in picked for m in s.modes for x in (*m.inputs, *(y for o in m.outcomes for y in o.outputs))}
    have = {e.name for e in spec.elements}
    added = tuple(e for e in proposal.elements if e.name in used and e.name not in have)
    return spec.model_copy(update={"elements": spec.elements + added, "skills": spec.skills + tuple(picked)})


def _renamed(skill: Skill, swap: Mapping[str, str]) -> Skill:
    if not swap:
        return skill

    def names(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(swap.get(v, v) for v in values))

    modes = tuple(
        m.model_copy(update={
            "inputs": names(m.inputs),
            "outcomes": tuple(o.model_copy(update={"outputs": names(o.outputs)}) for o in m.outcomes),
        })
        for m in skill.modes
    )
    return skill.model_copy(update={"modes": modes})
