"""A model query compiled once per process, run with a new primary key each time.

Django compiles a queryset to SQL on every evaluation: for the chat's session read on every message (a select_related
over three tables with deferred columns) that is ~1-2 ms of CPU per message, several times the
database's own work. `CompiledGet` keeps the SQL, the parameters and the way Django builds the
instances from a row (`ModelIterable`: `from_db` and the related populators), and swaps in the
primary key: the same query, the same instances (related objects, deferred fields, converters),
compiled once per database vendor.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators

# Stand for the looked-up value while compiling; never a real id or key.
_SENTINELS = {uuid.UUID: uuid.UUID(int=0x5E471E1), str: "\x00compiled-get-sentinel"}


class CompiledGet:
    """`build(value).first()`, compiled once: `build` returns the queryset filtered on `field` (the
    primary key by default) equal to its argument, a UUID or a string (`kind`)."""

    def __init__(self, build: Callable[[Any], QuerySet], *, field: str = "pk", kind: type = uuid.UUID):
        self._build, self._field, self._sentinel = build, field, _SENTINELS[kind]
        self._compiled: dict[tuple[str, str], tuple[Any, ...]] = {}
        self._lock = threading.Lock()

    def _compile(self, alias: str) -> tuple[Any, ...]:
        connection = connections[alias]
        key = (alias, connection.vendor)
        compiled = self._compiled.get(key)
        if compiled is None:
            queryset = self._build(self._sentinel)[:1]
            compiler = queryset.query.get_compiler(using=alias)
            sql, params = compiler.as_sql()
            meta = queryset.model._meta
            key_field = meta.pk if self._field == "pk" else meta.get_field(self._field)
            marker = key_field.get_db_prep_value(self._sentinel, connection)
            slots = [i for i, value in enumerate(params) if value == marker]
            if len(slots) != 1:
                raise RuntimeError(f"the compiled query holds its key {len(slots)} times: {sql}")
            klass_info, select = compiler.klass_info, compiler.select
            start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
            init_list = [column[0].target.attname for column in select[start:end]]
            converters = compiler.get_converters([column[0] for column in select[:compiler.col_count]])
            # The related objects' builders hold no row: made once, like the SQL.
            populators = get_related_populators(klass_info, select, alias)
            compiled = (compiler, sql, tuple(params), slots[0], key_field, klass_info["model"], start, end, init_list,
                        converters, populators)
            with self._lock:
                self._compiled[key] = compiled
        return compiled

    def get(self, pk: Any, using: str = "default") -> Model | None:
        compiler, sql, params, slot, key_field, model, start, end, init_list, converters, populators = (
            self._compile(using))
        connection = connections[using]
        args = list(params)
        args[slot] = key_field.get_db_prep_value(pk, connection)
        with connection.cursor() as cursor:
            cursor.execute(sql, args)
            row = cursor.fetchone()
        if row is None:
            return None
        if converters:
            row = next(iter(compiler.apply_converters([row], converters)))
        obj = model.from_db(using, init_list, row[start:end])
        for populator in populators:
            populator.populate(row, obj)
        return obj
