"""A catalog file: the spec, plus sections other apps keep beside it (the orchestrator's conversation
tests), so that what belongs to a catalog travels with its export and import.

This app may not import the orchestrator, so a section is handed to it at start (as promotion
gates are: `orchestrator/apps.py`): a key of the file, how to read it from a catalog, how to check
it (a ConcertoError naming the path at fault), and how to store it for an imported catalog.
Every import path (the page, the API, `import_catalog`) and every export path goes through here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import MAX_SPEC_BYTES, Format, decode, dump_catalog, parse_catalog
from orchestrator.engine.errors import ConcertoError, Issue, SpecError

from .models import Catalog, CatalogVersion, Workspace
from .selectors import version_spec
from .services import catalog_import


@dataclass(frozen=True)
class Section:
    export: Callable[[Catalog], Any]  # the section's data for the file; empty (falsy) to leave it out
    check: Callable[[Any], Any]  # the data checked, or a ConcertoError with the path at fault
    store: Callable[[Catalog, Any, AbstractBaseUser | None], None]  # in the import's transaction


_sections: dict[str, Section] = {}


def section_register(key: str, section: Section) -> None:
    _sections[key] = section


@dataclass
class CatalogFile:
    spec: CatalogSpec
    sections: dict[str, Any]  # checked data by key


def catalog_file_load(text: str | bytes, fmt: Format | None = None, filename: str = "",
                      max_bytes: int = MAX_SPEC_BYTES) -> CatalogFile:
    """The spec and the registered sections of a file; a SpecError lists every fault of both."""
    data = decode(text, fmt, filename, max_bytes)
    found: dict[str, Any] = {}
    if isinstance(data, dict):
        found = {key: data.pop(key) for key in list(data) if key in _sections}
    issues: list[Issue] = []
    try:
        spec = parse_catalog(data)
    except SpecError as exc:
        issues += exc.issues
    sections = {}
    for key, value in found.items():
        try:
            sections[key] = _sections[key].check(value)
        except SpecError as exc:
            issues += [Issue(f"{key}{_joined(i.path)}", i.message, i.code) for i in exc.issues]
        except ConcertoError as exc:
            issues.append(Issue(f"{key}{_joined(exc.path)}", str(exc)))
    if issues:
        raise SpecError(issues)
    return CatalogFile(spec=spec, sections=sections)


def _joined(path: str) -> str:
    return "" if not path else (path if path.startswith("[") else f".{path}")


@transaction.atomic
def catalog_file_import(*, workspace: Workspace, file: CatalogFile, user: AbstractBaseUser | None = None,
                        note: str = "") -> CatalogVersion:
    """The file's spec as a new draft (`services.catalog_import`) and its sections stored, all or nothing."""
    version = catalog_import(workspace=workspace, spec=file.spec, user=user, note=note)
    for key, value in file.sections.items():
        _sections[key].store(version.catalog, value, user)
    return version


def catalog_file_dump(*, version: CatalogVersion, fmt: Format = "yaml", spec: CatalogSpec | None = None) -> str:
    """The version's spec as a file, with the catalog's sections after it."""
    text = dump_catalog(spec or version_spec(version=version), fmt)
    extra = {key: data for key, section in _sections.items() if (data := section.export(version.catalog))}
    if not extra:
        return text
    if fmt == "json":
        return json.dumps({**json.loads(text), **extra}, indent=2, ensure_ascii=False) + "\n"
    # The spec is one mapping at the top: more keys after it keep the file one mapping.
    return text + yaml.safe_dump(extra, sort_keys=False, allow_unicode=True, width=100)
