"""State hygiene: per state table, the rows Spark's next batch evicts under the watermark, the
values whose TTL has expired and that are not cleaned up yet, and the rows older than a given
event time; and purging them as one edit batch. The procedures ``hygiene`` and ``purge`` of
``<catalog>.system`` (``dev.sparksavepoint.actions.StateHygiene``) do the work, in spark-sql,
the Thrift server and Spark Connect too; this module gives them to Python and the command line.

What Spark's next batch drops, and how it is counted (see docs/checkpoint-formats.md):

- **evictable**: an aggregation or dropDuplicates keyed by a watermarked column loses a row
  once the watermark reaches it (``ts <= watermark``, a window by its end;
  dropDuplicatesWithinWatermark by its ``expiresAtMicros``). The column is
  ``<catalog>.metadata``'s ``event_time``; the watermark is the one the last committed batch set
  for the next (``next_watermark_ms`` of ``query.batches``). A join's eviction depends on its
  condition and is not counted.
- **expired**: a transformWithState value, list element or map entry whose ``ttlExpirationMs``
  is at or before ``at`` (default: now); the next batch's clean-up removes it.
- **older**: rows whose event time (or ``column``) is before ``older_than``; nothing evicts them
  unless the watermark gets there.

A state no watermark evicts (an aggregation, dropDuplicates or join without a watermarked
column: ``never_evicted``) keeps every key it has seen.

>>> from spark_savepoint import hygiene, purge
>>> hygiene(spark, "/data/ckpt").tables[0].evictable  # doctest: +SKIP
120
>>> purge(spark, "/data/ckpt", dry_run=True).statements  # doctest: +SKIP
['DELETE FROM `...`.`dedup_0`.`default` WHERE (`ts` <= timestamp_millis(...))']
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from spark_savepoint.sql_ext import procedures
from spark_savepoint.sql_ext.edits import StatementsRun

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession

RULES = ("evictable", "expired", "older")


@dataclass(frozen=True)
class TableHygiene:
    """One state table (``uid.state``): its rows, and how many of them each rule selects (None:
    the rule does not apply to it)."""

    table: str
    state_kind: str
    event_time: str | None
    rows: int
    evictable: int | None = None
    expired: int | None = None
    older: int | None = None
    purgeable: int = 0
    """Rows any of the rules selects."""
    never_evicted: bool = False
    rows_per_partition: tuple[int, ...] = ()
    """Index = partition id (the partitions that hold rows, up to the largest)."""

    @property
    def share(self) -> float | None:
        """The purgeable rows' share of the table's rows (None when empty)."""
        return self.purgeable / self.rows if self.rows else None


@dataclass(frozen=True)
class Hygiene:
    """What :func:`hygiene` found, per state table."""

    checkpoint: str
    tables: tuple[TableHygiene, ...]


def hygiene(
    spark: SparkSession,
    path: str,
    *,
    batch: int | None = None,
    older_than: datetime | str | None = None,
    column: str | None = None,
    at: datetime | None = None,
    count: bool = True,
) -> Hygiene:
    """Count, per state table of the checkpoint at ``path`` (at ``batch``, default the last
    committed), what the next batch evicts, the expired TTL values (as of ``at``, default now)
    and, with ``older_than``, the rows before that event time (``column``: in tables without
    an event-time column). One Spark job per table; a join's internal stores are left out.
    Without ``count``, no Spark job: each table's event time and ``never_evicted``, rows 0.

    Raises:
        BadArguments: a time that is none, a column no state table has.
    """
    arguments: dict[str, Any] = {"batch_id": -1 if batch is None else int(batch), "count": count}
    arguments.update(_times(older_than, column, at))
    rows = procedures.call_rows(spark, path, "hygiene", **arguments)
    return Hygiene(path, tuple(_tables(rows)))


def _tables(rows: list[Row]) -> list[TableHygiene]:
    """The procedure's rows (per table and partition) summed per table, in order."""
    by_table: dict[str, list[Row]] = {}
    for row in rows:
        by_table.setdefault(row.table, []).append(row)
    out = []
    for name, parts in by_table.items():
        first = parts[0]
        counts = {p.partition_id: int(p.rows) for p in parts if p.partition_id is not None}
        per_partition = tuple(counts.get(i, 0) for i in range(max(counts, default=-1) + 1))
        total = sum(int(p.rows or 0) for p in parts)
        sums = {rule: _sum(parts, rule) for rule in RULES}
        out.append(
            TableHygiene(
                name, first.state_kind, first.event_time, total,
                **sums, purgeable=int(_sum(parts, "purgeable") or 0),
                never_evicted=bool(first.never_evicted),
                rows_per_partition=per_partition,
            )
        )  # fmt: skip
    return out


def _sum(parts: list[Row], rule: str) -> int | None:
    values = [p[rule] for p in parts]
    return None if values[0] is None else sum(int(v) for v in values)


def _times(
    older_than: datetime | str | None, column: str | None, at: datetime | None
) -> dict[str, Any]:
    """The procedures' arguments for the times: set ones only (an aware datetime with its
    offset, a naive one in the session's time zone)."""
    arguments: dict[str, Any] = {}
    if older_than is not None:
        text = older_than.isoformat() if isinstance(older_than, datetime) else older_than
        arguments["older_than"] = text
    if column is not None:
        arguments["column"] = column
    if at is not None:
        arguments["at_ms"] = int(at.timestamp() * 1000)
    return arguments


class Purge(StatementsRun):
    """What purging did: the DELETE statements, what each would remove (``planned``, a dry
    run) or the commit (``report``), and the last line of the outcome."""


def purge(
    spark: SparkSession,
    path: str,
    *,
    evictable: bool = True,
    aggregations: bool = False,
    expired: bool = True,
    older_than: datetime | str | None = None,
    column: str | None = None,
    at: datetime | None = None,
    tables: list[str] | None = None,
    dry_run: bool = False,
) -> Purge:
    """Delete, as one edit batch of the checkpoint at ``path``, the rows the rules select:
    ``evictable`` dropDuplicates rows (and, with ``aggregations``, aggregation rows: only for a
    query in update mode, since in append mode the next batch emits evicted groups as their
    final result), ``expired`` TTL values, and with ``older_than`` the rows before that event
    time. ``tables``: only these (``uid.state``); ``dry_run``: plan it, write nothing.

    Where it purges evictable rows, the batch runs that watermark as a Spark no-data batch
    does (input under it is late for the next batch): the restarted query then emits what the
    unpurged one emits once a batch of its own evicted the same rows.

    Raises:
        BadArguments: nothing to purge by (no rule), an unknown table or column, a bad time.
    """
    rows = procedures.call_rows(
        spark, path, "purge", evictable=evictable, aggregations=aggregations, expired=expired,
        tables=",".join(tables or []), dry_run=dry_run, **_times(older_than, column, at),
    )  # fmt: skip
    return Purge.of(spark, rows, dry_run)


def describe_purge(spark: SparkSession, path: str, **options: Any) -> str:
    """``spark-savepoint purge``: the statements, then the commit (or with ``dry_run`` what each
    would delete)."""
    return "\n".join([f"purge of '{path}':", *purge(spark, path, **options).lines()])
