"""Shared by the catalog commands: user errors become one CommandError, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.management.base import CommandError

from orchestrator.engine.errors import ConcertoError, SpecError


@contextmanager
def user_errors(what: str = "") -> Iterator[None]:
    """Re-raise a ConcertoError as a CommandError headed by `what`, one issue per line."""
    head = f"{what}: " if what else ""
    try:
        yield
    except SpecError as exc:
        count = len(exc.issues)
        lines = [f"{head}{count} problem{'s' if count != 1 else ''}"]
        lines += [f"  {issue}" for issue in exc.issues]
        raise CommandError("\n".join(lines)) from None
    except ConcertoError as exc:
        raise CommandError(f"{head}{exc}") from None
