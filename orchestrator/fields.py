"""Model fields the features share."""

from __future__ import annotations

from typing import Any

from django.db import models


class RowsJSONField(models.JSONField):
    """A JSONField that `bulk_create` writes as VALUES rows rather than through UNNEST.

    On PostgreSQL, Django inserts several rows as arrays (`UNNEST(%s::jsonb[])`), and psycopg
    escapes every quote of every JSON document into the array literal in Python: storing 1,000
    simulated conversations cost about 1.4 s of CPU that way. A field with a placeholder of its own
    keeps the plain VALUES form, whose parameters psycopg quotes in C. The column and the
    migrations are those of a JSONField (`deconstruct`).
    """

    def get_placeholder(self, value: Any, compiler: Any, connection: Any) -> str:
        return "%s"

    def deconstruct(self) -> Any:
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs
