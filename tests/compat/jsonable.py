"""Collected Spark values as JSON-able data, and a deterministic order for rows of them.

Shared by the version drivers (which write and print rows) and the tests that compare them: the
conversion is plain Python, importable under any pyspark. Timestamps become ISO 8601 strings in
UTC without an offset (``2024-01-01T10:00:00``; a naive datetime is taken as UTC, as the drivers
run with ``TZ=UTC``), dates ISO strings, decimals strings, binary hex, rows dicts in field order,
maps dicts when their keys are strings (else a sorted list of ``{"key", "value"}``).
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any


def jsonable(value: Any) -> Any:
    """``value`` (a collected cell, Row or plain data) as JSON-able data."""
    if hasattr(value, "asDict"):  # a pyspark Row, nested rows included via the recursion below
        return {name: jsonable(cell) for name, cell in value.asDict(recursive=False).items()}
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value):
            return {key: jsonable(cell) for key, cell in value.items()}
        entries = [{"key": jsonable(k), "value": jsonable(v)} for k, v in value.items()]
        return sorted(entries, key=order)
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    return value


def order(value: Any) -> tuple:
    """A sort key for JSON-able data: nulls first, numbers by value, then strings, lists, dicts."""
    if value is None:
        return (0,)
    if isinstance(value, (bool, int, float)):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, list):
        return (3, tuple(order(item) for item in value))
    if isinstance(value, dict):
        return (4, tuple((key, order(value[key])) for key in value))
    return (5, repr(value))


def sorted_rows(rows: list[Any]) -> list[Any]:
    """Collected rows as JSON-able dicts, sorted by their columns in order (key, value, ...)."""
    return sorted((jsonable(row) for row in rows), key=order)
