"""Errors of the authoring layer that a user can cause; shown as messages, never tracebacks."""

from orchestrator.engine.errors import ConcertoError


class VersionLocked(ConcertoError):
    """An edit or promotion of a catalog version that is not a draft."""

    def __init__(self, slug: str, number: int, status: str):
        self.slug, self.number, self.status = slug, number, status
        super().__init__(
            f"version {number} of catalog '{slug}' is {status} and cannot be changed; "
            "create a new draft from it"
        )
