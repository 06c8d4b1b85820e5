"""Conversations with live assistants: sessions, transcripts, traces and the share audit.

Writes go through `orchestrator.chat.services`, reads through `orchestrator.chat.selectors`.
"""

from __future__ import annotations

import uuid

from django.db import models

from catalog_app.models import CatalogVersion
from orchestrator.assistants.models import Assistant
from orchestrator.fields import RowsJSONField


class ChatSession(models.Model):
    # A random UUID: the session id is all a widget needs to continue, so it must not be guessable.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    assistant = models.ForeignKey(Assistant, on_delete=models.CASCADE, related_name="sessions")
    # The engine's SessionState, real values included (the runtime needs them): sealed with Fernet,
    # `{"packed": token}`, or `{"purged": true}` once the retention passed (`orchestrator.chat.vault`).
    state = models.JSONField(default=dict)
    # Lines of the transcript and of the trace so far: the next positions, read under the row lock.
    message_count = models.PositiveIntegerField(default=0)
    trace_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The message whose turn is running holds the lease until it writes its turn (or it lapses):
    # the turn runs outside any transaction, so this, not a row lock, keeps turns one at a time.
    lease_token = models.UUIDField(null=True, blank=True, editable=False)
    lease_until = models.DateTimeField(null=True, blank=True, editable=False)
    # The version and orchestrator the conversation started on, for the analytics page's filter (a
    # session goes on with whatever its assistant runs later); empty on sessions from before 0010.
    catalog_version = models.ForeignKey(CatalogVersion, null=True, blank=True, on_delete=models.SET_NULL,
                                        related_name="+")
    mode = models.CharField(max_length=16, blank=True, default="")

    class Meta:
        ordering = ("-updated_at",)
        indexes = (models.Index(fields=["assistant", "created_at"], name="session_assistant_created"),)

    def __str__(self) -> str:
        return f"session {self.id} of {self.assistant_id}"

    @property
    def is_test(self) -> bool:
        """A session of the studio's test chat (on a draft), not of a published assistant."""
        return self.assistant.studio_test


class MessageRole(models.TextChoices):
    USER = "user", "User"
    ASSISTANT = "assistant", "Assistant"


class MessageMark(models.TextChoices):
    """What an assistant line tells about the turn, set when it is written from the engine's typed reply."""

    NONE = "", "None"
    NOT_UNDERSTOOD = "not_understood", "Not understood"
    CONSENT_REFUSED = "consent_refused", "Consent refused"
    STARTED = "started", "Intent started"


class Message(models.Model):
    """One line of a transcript; sensitive values are masked before it is stored."""

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="messages")
    position = models.PositiveIntegerField()
    role = models.CharField(max_length=16, choices=MessageRole.choices)
    kind = models.CharField(max_length=16)  # a reply kind (text, question, consent, ...) or "user"
    text = models.TextField()
    data = RowsJSONField(default=dict, blank=True)  # the reply as the API gave it, masked
    created_at = models.DateTimeField(auto_now_add=True)
    # The widget's id of a user message: a resend with the same id runs no second turn.
    client_id = models.CharField(max_length=64, blank=True, default="")
    # On a user message: how long its turn took to answer (understanding, planning, skill calls), in ms.
    turn_ms = models.PositiveIntegerField(null=True, blank=True)
    # On an assistant line: the engine's mark of the turn (analytics counts these, never the wording).
    mark = models.CharField(max_length=24, choices=MessageMark.choices, blank=True, default="")

    class Meta:
        ordering = ("session_id", "position")
        constraints = (
            models.UniqueConstraint(fields=["session", "position"], name="message_unique_position"),
            models.UniqueConstraint(fields=["session", "client_id"], condition=~models.Q(client_id=""),
                                    name="message_unique_client_id"),
        )
        # The analytics page finds sessions by the kind of a line (a goal reached, a consent asked).
        indexes = (
            models.Index(fields=["kind", "session"], name="message_kind_session"),
            # Few lines carry a mark: a partial index holds only those.
            models.Index(fields=["mark", "session"], name="message_mark_session", condition=~models.Q(mark="")),
        )

    def __str__(self) -> str:
        return f"{self.session_id} #{self.position} {self.role}"


class TraceKind(models.TextChoices):
    PLAN = "plan", "Plan"
    EXECUTION = "execution", "Execution"
    SHARE = "share", "Share"


class TraceEvent(models.Model):
    """What the orchestrator did in a turn, for the inspector: plans made or given up, skill calls."""

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="trace")
    position = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=TraceKind.choices)
    data = RowsJSONField(default=dict)  # masked like the transcript (a turn's events: rows, not arrays)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("session_id", "position")
        constraints = (models.UniqueConstraint(fields=["session", "position"], name="trace_unique_position"),)

    def __str__(self) -> str:
        return f"{self.session_id} #{self.position} {self.kind}"


class ShareAudit(models.Model):
    """A sensitive value went to a skill, under a consent: the audit log admins read.

    The value itself is never stored; the session (and through it the assistant and workspace)
    says whose it was.
    """

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="shares")
    assistant = models.ForeignKey(Assistant, on_delete=models.CASCADE, related_name="shares")
    element = models.CharField(max_length=64)
    skill = models.CharField(max_length=64)
    consent = models.CharField(max_length=64)  # the skill (per skill) or element (per element) authorized
    step = models.PositiveIntegerField()  # the skill call in the session's history
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("created_at", "pk")

    def __str__(self) -> str:
        return f"{self.element} -> {self.skill} ({self.session_id})"
