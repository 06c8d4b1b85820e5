"""Shared by the catalog commands: user errors become one CommandError, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog_app.models import CatalogVersion, Workspace
from catalog_app.permissions import NotAllowed
from catalog_app.selectors import catalog_get, version_get, version_latest
from catalog_app.services import DEFAULT_WORKSPACE
from orchestrator.engine.errors import UNREADABLE, ConcertoError, SpecError

# The exit status of a command given input it cannot use (a missing or unreadable file, a bad
# option, a name that does not exist), as argparse exits; 1 when the input was read and the answer
# is no (no plan, a plan or a catalog that is not valid, a gate that refuses).
BAD_INPUT = 2
ANSWER_NO = 1


def exit_status(exc: ConcertoError) -> int:
    if isinstance(exc, SpecError):
        return BAD_INPUT if any(issue.code == UNREADABLE for issue in exc.issues) else ANSWER_NO
    return ANSWER_NO if exc.answer_is_no else BAD_INPUT


def read_input(path: str, *, limit: int | None = None) -> bytes:
    """The bytes of an input file, or a CommandError (exit 2) naming it and what went wrong."""
    file = Path(path)
    try:
        if limit is not None and file.stat().st_size > limit:
            raise CommandError(f"{path}: the file is larger than {limit:,} bytes", returncode=BAD_INPUT)
        return file.read_bytes()
    except OSError as exc:
        raise CommandError(f"{path}: cannot read the file ({exc.strerror or exc})", returncode=BAD_INPUT) from None


@contextmanager
def user_errors(what: str = "") -> Iterator[None]:
    """Re-raise a ConcertoError or NotAllowed as a CommandError headed by `what`, one issue per line, exiting
    2 or 1 (`exit_status`; a --user whose role may not do it: 2)."""
    head = f"{what}: " if what else ""
    try:
        yield
    except SpecError as exc:
        count = len(exc.issues)
        lines = [f"{head}{count} problem{'s' if count != 1 else ''}"]
        lines += [f"  {issue}" for issue in exc.issues]
        raise CommandError("\n".join(lines), returncode=exit_status(exc)) from None
    except ConcertoError as exc:
        raise CommandError(f"{head}{exc}", returncode=exit_status(exc)) from None
    except NotAllowed as exc:  # a --user whose role may not do it
        raise CommandError(f"{head}{exc}", returncode=BAD_INPUT) from None


class VersionedCommand(BaseCommand):
    """A command about one version of a catalog. `--version N` names that version in every command, so
    Django's own `--version` (its release) gives way to it; `--number N` is the same option."""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        kwargs.setdefault("conflict_handler", "resolve")
        return super().create_parser(prog_name, subcommand, **kwargs)


def add_version_option(parser: CommandParser, help: str = "the catalog version (default: the latest)") -> None:
    parser.add_argument("--version", "--number", dest="number", type=int, default=None, metavar="N", help=help)


def add_version_arguments(parser: CommandParser) -> None:
    parser.add_argument("slug", help="the catalog's slug")
    add_version_option(parser)
    parser.add_argument("--workspace", default=DEFAULT_WORKSPACE, help="workspace slug")


def resolve_version(*, slug: str, number: int | None, workspace: str) -> CatalogVersion:
    """The version a command names (the latest by default), or a CommandError saying why not."""
    space = Workspace.objects.filter(slug=workspace).first()
    if space is None:
        raise CommandError(f"unknown workspace '{workspace}'", returncode=BAD_INPUT)
    with user_errors():
        catalog = catalog_get(workspace=space, slug=slug)
        version = version_latest(catalog=catalog) if number is None else version_get(catalog=catalog, number=number)
    if version is None:
        raise CommandError(f"{slug}: the catalog has no version", returncode=BAD_INPUT)
    return version


def names(text: str) -> list[str]:
    """`a, b,c` -> ["a", "b", "c"]: how the commands take lists of names."""
    return [name.strip() for name in text.split(",") if name.strip()]
