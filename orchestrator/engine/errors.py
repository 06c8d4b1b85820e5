"""Errors a user can cause. Each message names the element, skill, intent or line at fault."""

from __future__ import annotations

from dataclasses import dataclass

UNREADABLE = "unreadable"  # an Issue's code when a document could not be read at all (syntax, size, encoding)


@dataclass(frozen=True)
class Issue:
    """One fault in a catalog, located by a path such as `skills[2].modes[0].inputs[1]`."""

    path: str
    message: str
    code: str = ""  # what kind of fault, for whoever routes it (a form puts `type_cycle` on `parent`)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ConcertoError(Exception):
    """Base of every error that is the user's to fix (shown as a message, never a traceback).

    Every such error reaches the user the same way, as `issues`: the API's `errors` list, a form's
    field errors and the CLI's lines all read them. `path` names the field at fault, when one is
    (`known[1]`, `skills[0].modes[0].inputs[2]`).
    """

    path: str = ""
    # The input was read and the answer is no (a gate refuses, an edit is refused), rather than the input
    # could not be used: the command line's exit status 1 instead of 2.
    answer_is_no: bool = False

    def __init__(self, message: str = "", *, path: str = ""):
        super().__init__(message)
        if path:
            self.path = path

    @property
    def issues(self) -> list[Issue]:
        return [Issue(self.path, str(self))]

    def at(self, path: str) -> ConcertoError:
        """The same fault, reported against the request field `path` (a SpecError keeps its own paths)."""
        return ConcertoError(str(self), path=path)


class SpecError(ConcertoError):
    """A catalog that cannot be accepted; carries every fault found, not just the first."""

    def __init__(self, issues: list[Issue]):
        self._issues = list(issues)
        super().__init__("\n".join(str(issue) for issue in issues))

    @property
    def issues(self) -> list[Issue]:
        return self._issues

    def at(self, path: str) -> ConcertoError:
        return self


class UnknownName(ConcertoError):
    """A request named an intent, element or skill the catalog does not have."""

    def __init__(self, kind: str, name: str, choices: list[str] | None = None, *, path: str = ""):
        self.kind, self.name = kind, name
        hint = f" (known: {', '.join(sorted(choices))})" if choices else ""
        super().__init__(f"unknown {kind} '{name}'{hint}", path=path)


class PlannerFailure(ConcertoError):
    """Fast Downward could not be run or returned something we cannot read."""
