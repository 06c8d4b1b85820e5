"""Reading tool specs and recorded sequences, and writing analysis reports as plain data.

Read as they are:
- tool specs as the studio imports them (`toolspec.parse_tools`): OpenAPI 3 documents and
  function specs in NESTFUL's layout (`query_parameters` with `required` flags,
  `output_parameters`) or OpenAI's (`{"type": "function", "function": {...}}`);
- samples in NESTFUL's layout (a list of objects whose `output` is the call list, possibly as a
  JSON string, with optional `tools`, `memory`, `goals`, `sample_id`), `{"samples": [...],
  "tools": [...]}`, JSON Lines of samples, or one bare list of calls;
- a catalog spec, whose skills become tools: a mode's inputs are parameters, its outcomes'
  outputs are outputs, and each mode is one way to call the tool.
Every fault is a `DataError` naming where it is (`samples[3].output[2].arguments`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, replace
from typing import Any

from ..catalog import toolspec
from ..catalog.documents import Unreadable, load_json, text_faults, within_depth
from ..catalog.ontology import Ontology
from ..catalog.spec import CatalogSpec
from ..errors import ConcertoError, SpecError
from .sequences import Call, Sample
from .tools import ParamRule, Tool, ToolCatalog
from .trajectories import BatchReport

MAX_SAMPLES = 10_000
MAX_CALLS = 500
MAX_TOOLS = 5_000


class DataError(ConcertoError):
    """A tool spec or a recorded sequence that cannot be read; `path` says where."""

    def __init__(self, path: str, message: str):
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


def decode_json(text: str | bytes, what: str = "the file") -> Any:
    """JSON, or JSON Lines (one value per line) when the text is not a single JSON value.

    Text that cannot be stored (a NUL character, a lone surrogate) is refused with its path.
    """
    data = _decode_json(text, what)
    for path, message in text_faults(data):
        raise DataError(path, f"{what}: {message}")
    return data


def _decode_json(text: str | bytes, what: str) -> Any:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise DataError("", f"{what} is not UTF-8 text") from None
    try:
        return load_json(text)
    except Unreadable as whole:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) < 2 or not whole.where:  # a document too deep or too long is not JSON Lines either
            raise DataError("", _refusal(what, whole)) from None
        records = []
        for number, line in enumerate(lines, start=1):
            try:
                records.append(load_json(line))
            except Unreadable as exc:
                if exc.where:  # not JSON Lines: report the whole text's fault
                    raise DataError("", _refusal(what, whole)) from None
                raise DataError(f"line {number}", _refusal(what, exc)) from None
        return within_depth(records)


def _refusal(what: str, exc: Unreadable) -> str:
    if exc.where:  # a syntax error
        return f"{what} is not JSON: {str(exc).removeprefix('malformed JSON: ')} ({exc.where})"
    return f"{what} cannot be read: {exc}"


# --- tools --------------------------------------------------------------------------------------


def tools_from_catalog(spec: CatalogSpec) -> ToolCatalog:
    onto = Ontology(spec.elements)
    tools = []
    for skill in spec.skills:
        inputs = list(dict.fromkeys(x for mode in skill.modes for x in mode.inputs))
        outputs = tuple(dict.fromkeys(x for mode in skill.modes for o in mode.outcomes for x in o.outputs))
        params = tuple(
            ParamRule(x, required=all(x in mode.inputs for mode in skill.modes), aliases=onto.subtree(x)[1:])
            for x in inputs
        )
        tools.append(Tool(skill.name, params, outputs, signatures=tuple(mode.inputs for mode in skill.modes)))
    return ToolCatalog(tools)


def tool_catalog(data: Any, path: str = "tools") -> ToolCatalog:
    """Tools from decoded specs, read by the studio's importer (OpenAPI 3 or function specs).

    `data` may also be a list of OpenAPI documents (NESTFUL ships one file per tool). A tool name
    seen twice keeps its first spec, with a warning: refusing the whole file would leave nothing
    to analyse against, and the first spec is the one a reader of the file meets first.
    """
    data = _maybe_json(data, path)
    if isinstance(data, list) and len(data) > MAX_TOOLS:
        raise DataError(path, f"{len(data):,} tools; the limit is {MAX_TOOLS:,}")
    warnings: list[str] = []
    if isinstance(data, list) and data and all(_is_openapi(d) for d in data):
        specs = [spec for i, doc in enumerate(data) for spec in _parse(doc, f"{path}[{i}]")]
    else:
        items, where = _function_items(data, path)
        if items is None:
            specs = _parse(data, path)
        else:
            warnings += _unread_keys(items, where)
            specs = _parse(_first_of_each(items, where, warnings), path)
    kept: dict[str, toolspec.ToolSpec] = {}
    for spec in specs:
        if spec.name in kept:
            warnings.append(f"{path}: tool '{spec.name}' is specified twice; the first spec is kept")
            continue
        kept[spec.name] = spec
    return ToolCatalog((_tool(spec) for spec in kept.values()), warnings)


def _is_openapi(doc: Any) -> bool:
    return isinstance(doc, Mapping) and ("openapi" in doc or "swagger" in doc)


def _parse(data: Any, path: str) -> list[toolspec.ToolSpec]:
    try:
        return toolspec.parse_tools(data)
    except SpecError as exc:
        first = exc.issues[0]
        more = f" (and {len(exc.issues) - 1} more)" if len(exc.issues) > 1 else ""
        where = f"{path}{'' if first.path.startswith('[') or not first.path else '.'}{first.path}"
        raise DataError(where, f"{first.message}{more}") from None


def _function_items(data: Any, path: str) -> tuple[list[Any] | None, str]:
    """The raw list of function specs, when `data` is one (else None: an OpenAPI document)."""
    if isinstance(data, list):
        return data, path
    if isinstance(data, Mapping) and not _is_openapi(data):
        for key in ("tools", "functions"):
            if isinstance(data.get(key), list):
                return data[key], f"{path}.{key}"
    return None, path


def _first_of_each(items: list[Any], path: str, warnings: list[str]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for i, item in enumerate(items):
        inner = item.get("function") if isinstance(item, Mapping) and isinstance(item.get("function"), Mapping) \
            else item
        name = inner.get("name") if isinstance(inner, Mapping) else None
        if isinstance(name, str) and name.strip() in seen:
            warnings.append(f"{path}[{i}]: tool '{name.strip()}' is specified twice; the first spec is kept")
            continue
        if isinstance(name, str):
            seen.add(name.strip())
        out.append(item)
    return out


# Keys of a function spec that say nothing about its inputs and outputs.
_KNOWN_KEYS = {*toolspec.INPUT_KEYS, *toolspec.OUTPUT_KEYS, "name", "description", "method", "endpoint", "host",
               "url", "output_parser", "type", "function", "strict", "returns", "required", "examples", "tags",
               "summary", "version", "id"}


def _unread_keys(items: list[Any], path: str) -> list[str]:
    """A spec whose parameters sit under a key nobody reads would make every argument 'made up'."""
    warnings = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            continue
        odd = [k for k, v in item.items() if k not in _KNOWN_KEYS and isinstance(v, Mapping | list) and v]
        if odd:
            warnings.append(f"{path}[{i}] ({item.get('name', '?')}): '{', '.join(map(str, odd))}' not read "
                            "as parameters; its calls' arguments will look made up")
    return warnings


def _tool(spec: toolspec.ToolSpec) -> Tool:
    # JSON Schema's reading: a parameter is required only when the spec says so. (The catalog
    # importer takes every input when a spec marks none, to plan safely; tagging a recorded call
    # that way flags every optional parameter it left out.)
    params = tuple(
        ParamRule(p.name, required=p.required, description=p.description, type=p.type, enum=p.enum)
        for p in spec.inputs
    )
    outputs = tuple(dict.fromkeys(f for p in spec.outputs for f in (p.name, *(f"{p.name}.{f}" for f in p.fields))))
    return Tool(spec.name, params, outputs, description=spec.description)


# --- samples ------------------------------------------------------------------------------------


def load_samples(data: Any, path: str = "samples") -> list[Sample]:
    data = _maybe_json(data, path)
    shared: ToolCatalog | None = None
    if isinstance(data, Mapping):
        if "tools" in data and ("samples" in data or "data" in data):
            shared = tool_catalog(data["tools"], f"{path}.tools")
        if "samples" in data or "data" in data:
            key = "samples" if "samples" in data else "data"
            data, path = _maybe_json(data[key], f"{path}.{key}"), f"{path}.{key}"
        else:
            data = [data]  # one sample
    if not isinstance(data, list):
        raise DataError(path, "expected a list of samples (each with an 'output' list of calls)")
    if data and all(isinstance(x, Mapping) and ("name" in x or "function" in x) and "output" not in x for x in data):
        data = [{"output": data}]  # one bare sequence of calls
    if len(data) > MAX_SAMPLES:
        raise DataError(path, f"{len(data):,} samples; the limit is {MAX_SAMPLES:,}")
    samples = [_sample(item, f"{path}[{i}]", i) for i, item in enumerate(data)]
    if shared is not None:
        samples = [s if s.tools else replace(s, tools=shared) for s in samples]
    return samples


def _sample(item: Any, path: str, index: int) -> Sample:
    if not isinstance(item, Mapping):
        raise DataError(path, "a sample must be an object with an 'output' list of calls")
    key = next((k for k in ("output", "calls", "sequence") if k in item), None)
    if key is None:
        raise DataError(path, "a sample needs its calls under 'output'")
    calls = _maybe_json(item[key], f"{path}.{key}")
    if not isinstance(calls, list):
        raise DataError(f"{path}.{key}", "the calls must be a list")
    if len(calls) > MAX_CALLS:
        raise DataError(f"{path}.{key}", f"{len(calls):,} calls; the limit is {MAX_CALLS:,}")
    memory = _maybe_json(item.get("memory", item.get("memory_objects", {})) or {}, f"{path}.memory")
    if not isinstance(memory, Mapping):
        raise DataError(f"{path}.memory", "memory must be an object: name -> value")
    tools = tool_catalog(item["tools"], f"{path}.tools") if item.get("tools") else None
    return Sample(
        calls=tuple(_call(c, f"{path}.{key}[{j}]") for j, c in enumerate(calls)),
        memory=dict(memory),
        goals=tuple(_goals(item.get("goals") or [], f"{path}.goals")),
        ident=str(item.get("sample_id", item.get("id", index))),
        tools=tools,
        request=_request(item),
    )


def _request(item: Mapping[str, Any]) -> str:
    text = next((item[k] for k in ("input", "query", "utterance", "request") if k in item), "")
    return text if isinstance(text, str) else ""


def _call(item: Any, path: str) -> Call:
    if not isinstance(item, Mapping):
        raise DataError(path, "a call must be an object with 'name' and 'arguments'")
    if isinstance(item.get("function"), Mapping):  # OpenAI's tool_calls entries
        item = {**item["function"], "label": item.get("label", "")}
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise DataError(f"{path}.name", "a call needs the name of a tool")
    arguments = _maybe_json(item.get("arguments") or {}, f"{path}.arguments")
    if not isinstance(arguments, Mapping):
        raise DataError(f"{path}.arguments", "arguments must be an object: parameter -> value")
    label = item.get("label") or ""
    if not isinstance(label, str):
        raise DataError(f"{path}.label", "a label must be a string such as 'var1'")
    return Call(name=name, arguments={str(k): v for k, v in arguments.items()}, label=label)


def _goals(goals: Any, path: str) -> list[str]:
    if not isinstance(goals, list):
        raise DataError(path, "goals must be a list of tool names or fields")
    names = []
    for i, goal in enumerate(goals):
        if isinstance(goal, Mapping):  # {"name": tool} or {"item_id": field}
            goal = goal.get("name", goal.get("item_id"))
        if not isinstance(goal, str) or not goal:
            raise DataError(f"{path}[{i}]", "a goal is a tool name or a field name")
        names.append(goal)
    return names


def _maybe_json(value: Any, path: str) -> Any:
    """Some datasets store nested lists and objects as JSON strings (NESTFUL's own release does)."""
    if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
        try:
            return load_json(value)
        except Unreadable as exc:  # nested JSON in a string: a deep one must not break the parser either
            raise DataError(path, f"not JSON: {str(exc).removeprefix('malformed JSON: ')}") from None
    return value


# --- reports ------------------------------------------------------------------------------------


def report_to_data(report: BatchReport) -> dict[str, Any]:
    """The report as JSON-ready data: every number, tag, repaired and compressed call, and diff."""
    data = asdict(report)
    for sequence in data["sequences"]:
        for key in ("errors", "repaired_errors"):
            for tag in sequence[key]:
                tag["kind"] = str(tag["kind"])
    return data
