"""A chat session's state at rest: encrypted, and dropped once the assistant's retention has passed.

The state holds the real values the user gave, sensitive ones included (the runtime sends them on
to skills), so the row stores it sealed with Fernet (AES-128-CBC with an HMAC), never in clear:
`{"packed": "<token>"}`, the JSON compressed (zlib) before it is encrypted. Compressed, a state stays
in the row (about 1.2 KB for a loan conversation, against 3.8 KB sealed as it was, over the 2 KB at
which PostgreSQL moves a value out of line): PostgreSQL then writes no TOAST chunks on every turn and
reads none back. (What compression could reveal, the length of a state whose content a user partly
chose, tells a reader of the database nothing that the transcript beside it does not.) Rows sealed
uncompressed, `{"sealed": "<token>"}`, are read as they are.

The keys come from CONCERTO_STATE_KEYS (Fernet keys, comma-separated, the first one encrypts, all
decrypt: add a new key in front to rotate); without it, one key is derived from SECRET_KEY. Rows
written before sealing (a plain state) are read as they are and sealed at their next save.

When the user ends the conversation (`session_end`, the widget's "New conversation"), or after
an assistant's `state_retention_hours` without a message (`sessions_purge_values`), the state is
dropped (`{"purged": true}`): the transcript and audit log stay (they never held values), the
conversation cannot go on, and a message to it is refused.
"""

from __future__ import annotations

import base64
import hashlib
import zlib
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import transaction
from django.db.models import DurationField, ExpressionWrapper, F
from django.utils import timezone

from orchestrator.chat.models import ChatSession
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.runtime.session import SessionState

PURGED = {"purged": True}


class SessionEnded(ConcertoError):
    """The session's values were dropped (retention) or cannot be read (its key is gone)."""

    def __init__(self, session_id: object):
        super().__init__(f"the conversation {session_id} has ended and its data was removed; start a new one")


def _vault() -> MultiFernet:
    # Built once per configuration, not per message (two per turn): keyed on what it is made of,
    # so changed settings (a key rotation in tests) take effect at once.
    return _vault_of(tuple(settings.CONCERTO_STATE_KEYS), settings.SECRET_KEY)


@lru_cache(maxsize=8)
def _vault_of(keys: tuple[str, ...], secret_key: str) -> MultiFernet:
    if not keys:
        digest = hashlib.sha256(f"concerto-session-state:{secret_key}".encode()).digest()
        keys = (base64.urlsafe_b64encode(digest).decode(),)
    return MultiFernet([Fernet(key) for key in keys])


def state_seal(state: SessionState) -> dict[str, Any]:
    """What the `state` column stores: the state as JSON, compressed, encrypted."""
    return {"packed": _vault().encrypt(zlib.compress(state.model_dump_json().encode())).decode()}


def state_open(stored: dict[str, Any], *, session_id: object = "") -> SessionState:
    """The state a row stores; SessionEnded when it was purged or its key is no longer configured."""
    if stored.get("purged"):
        raise SessionEnded(session_id)
    try:
        if "packed" in stored:
            return SessionState.model_validate_json(zlib.decompress(_vault().decrypt(stored["packed"].encode())))
        if "sealed" in stored:  # sealed before states were compressed
            return SessionState.model_validate_json(_vault().decrypt(stored["sealed"].encode()))
    except InvalidToken:
        raise SessionEnded(session_id) from None
    return SessionState.model_validate(stored)  # written before sealing


def state_or_empty(stored: dict[str, Any]) -> SessionState:
    """The state for the inspector: an ended session shows an empty one (its transcript remains)."""
    try:
        return state_open(stored)
    except SessionEnded:
        return SessionState()


def session_end(session: ChatSession) -> bool:
    """The user closed the conversation: drop its values now rather than at the retention's end.

    Like the purge, the transcript and the audit stay. A turn running under the lease wrote nothing
    yet: its write finds the state gone (the lease check fails on the cleared lease) and refuses.
    False when it had already ended.
    """
    return bool(ChatSession.objects.filter(pk=session.pk).exclude(state=PURGED)
                .update(state=PURGED, lease_token=None, lease_until=None))


@transaction.atomic
def sessions_purge_values(*, now: datetime | None = None) -> int:
    """Drop the state of every session idle for longer than its assistant's retention; how many."""
    now = now or timezone.now()
    idle_for = ExpressionWrapper(now - F("updated_at"), output_field=DurationField())
    retention = ExpressionWrapper(F("assistant__state_retention_hours") * timedelta(hours=1),
                                  output_field=DurationField())
    expired = (ChatSession.objects.annotate(idle_for=idle_for, retention=retention)
               .filter(idle_for__gt=F("retention")).exclude(state=PURGED)
               .exclude(lease_until__gt=now))  # a turn is running: it writes the state it read
    # update() leaves updated_at alone: it keeps saying when the conversation last moved.
    return ChatSession.objects.filter(pk__in=expired.values("pk")).update(state=PURGED)
