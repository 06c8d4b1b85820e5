"""`purge_sessions`: drop the values of chat sessions idle for longer than their assistant's retention.

Run it from cron (hourly, say); it is idempotent. Transcripts and the share audit stay: they
never held values.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from orchestrator.chat.vault import sessions_purge_values


class Command(BaseCommand):
    help = "Drop the stored values of chat sessions idle for longer than their assistant's retention."

    def handle(self, *args: Any, **options: Any) -> None:
        count = sessions_purge_values()
        self.stdout.write(f"purged the values of {count} session{'s' if count != 1 else ''}")
