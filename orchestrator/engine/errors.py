"""Errors a user can cause. Each message names the element, skill, intent or line at fault."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Issue:
    """One fault in a catalog, located by a path such as `skills[2].modes[0].inputs[1]`."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ConcertoError(Exception):
    """Base of every error that is the user's to fix (shown as a message, never a traceback)."""


class SpecError(ConcertoError):
    """A catalog that cannot be accepted; carries every fault found, not just the first."""

    def __init__(self, issues: list[Issue]):
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))


class UnknownName(ConcertoError):
    """A request named an intent, element or skill the catalog does not have."""

    def __init__(self, kind: str, name: str, choices: list[str] | None = None):
        self.kind, self.name = kind, name
        hint = f" (known: {', '.join(sorted(choices))})" if choices else ""
        super().__init__(f"unknown {kind} '{name}'{hint}")


class PlannerFailure(ConcertoError):
    """Fast Downward could not be run or returned something we cannot read."""
