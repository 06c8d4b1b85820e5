"""Reading and writing catalog specs as YAML or JSON, with every fault reported by path."""

from __future__ import annotations

import json
from typing import Any, Literal

import yaml
from pydantic import ValidationError

from ..errors import UNREADABLE, Issue, SpecError
from .checks import validate_catalog
from .documents import Unreadable, load_json, load_yaml
from .spec import CatalogSpec

Format = Literal["yaml", "json"]
MEDIA_TYPES: dict[str, str] = {"yaml": "application/yaml", "json": "application/json"}
# The default size limit of a catalog file; a deployment sets its own (Django's CATALOG_MAX_BYTES).
# A real tool catalog of 4,000 tools is about 1.6 MB of YAML.
MAX_SPEC_BYTES = 8 * 1024 * 1024


def _path(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _pydantic_issues(error: ValidationError) -> list[Issue]:
    issues = []
    for item in error.errors():
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = f"unknown field '{item['loc'][-1]}'"
            issues.append(Issue(_path(item["loc"][:-1]), message))
            continue
        if item["type"] == "too_short" and item.get("input"):
            continue  # its items failed and were counted out: those faults are reported already
        if item["type"] == "too_short" and item["loc"] and item["loc"][-1] == "modes":
            message = "a skill needs at least one mode"
        elif item["type"] == "too_short" and item["loc"] and item["loc"][-1] == "outcomes":
            message = "a mode needs at least one outcome"
        issues.append(Issue(_path(item["loc"]), message))
    return issues


def parse_catalog(data: Any) -> CatalogSpec:
    """A validated spec from already-decoded data; raises SpecError with every fault."""
    spec = spec_from_data(data)
    issues = validate_catalog(spec)
    if issues:
        raise SpecError(issues)
    return spec


def spec_from_data(data: Any) -> CatalogSpec:
    """A spec from already-decoded data with its fields checked by the schema, and only that:
    the checks across the catalog (`validate_catalog`) are the caller's to run."""
    if not isinstance(data, dict):
        raise SpecError([Issue("", "a catalog must be a mapping with 'catalog', 'elements', 'skills', ...")])
    try:
        return CatalogSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(_pydantic_issues(exc)) from None


def guess_format(text: str, filename: str = "") -> Format:
    if filename.endswith(".json") or text.lstrip().startswith("{"):
        return "json"
    return "yaml"


def decode(text: str | bytes, fmt: Format | None = None, filename: str = "", max_bytes: int = MAX_SPEC_BYTES) -> Any:
    """Raw data from YAML or JSON text, with size and syntax errors as SpecError."""
    size = len(text.encode() if isinstance(text, str) else text)
    if size > max_bytes:
        raise SpecError([Issue("", f"the file is {size:,} bytes; the limit is {max_bytes:,} bytes", UNREADABLE)])
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise SpecError([Issue("", "the file is not UTF-8 text", UNREADABLE)]) from None
    fmt = fmt or guess_format(text, filename)
    try:
        return load_json(text) if fmt == "json" else load_yaml(text)
    except Unreadable as exc:
        raise SpecError([Issue(exc.where, str(exc), UNREADABLE)]) from None


def load_catalog(
    text: str | bytes, fmt: Format | None = None, filename: str = "", max_bytes: int = MAX_SPEC_BYTES
) -> CatalogSpec:
    return parse_catalog(decode(text, fmt, filename, max_bytes))


def catalog_to_data(spec: CatalogSpec) -> dict[str, Any]:
    """Plain data without default values, so exported files stay short and readable."""
    return spec.model_dump(mode="json", exclude_defaults=True)


class _TidyDumper(yaml.SafeDumper):
    pass


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    # Short lists of names read best inline: `inputs: [email]`.
    flow = all(isinstance(item, str | int | float) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_TidyDumper.add_representer(list, _represent_list)


def dump_catalog(spec: CatalogSpec, fmt: Format = "yaml") -> str:
    data = catalog_to_data(spec)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return yaml.dump(data, Dumper=_TidyDumper, sort_keys=False, allow_unicode=True, width=100)
