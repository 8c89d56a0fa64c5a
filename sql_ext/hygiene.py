"""State hygiene: per state table, the rows Spark's next batch evicts under the watermark, the
values whose TTL has expired and that are not cleaned up yet, and the rows older than a given
event time; and purging them as one edit batch.

What Spark's next batch drops, and how it is counted here (see docs/checkpoint-formats.md):

- **evictable**: an aggregation or dropDuplicates keyed by a watermarked column loses a row
  once the watermark reaches it (``ts <= watermark``, a window by its end;
  dropDuplicatesWithinWatermark by its ``expiresAtMicros``). The column is ``<catalog>.metadata``'s
  ``event_time``; the watermark is the one the last committed batch set for the next
  (``next_watermark_ms`` of ``query.batches``). A join's eviction depends on its condition and
  is not counted.
- **expired**: a transformWithState value, list element or map entry whose ``ttlExpirationMs``
  is at or before ``at`` (default: now); the next batch's clean-up removes it.
- **older**: rows whose event time (or ``column``) is before ``older_than``; nothing evicts them
  unless the watermark gets there.

A state that no watermark evicts (an aggregation, dropDuplicates or join without a watermarked
column: ``never_evicted``) keeps every key it has seen.

>>> from spark_savepoint import hygiene, purge
>>> hygiene(spark, "/data/ckpt").tables[0].evictable  # doctest: +SKIP
120
>>> purge(spark, "/data/ckpt", dry_run=True).statements  # doctest: +SKIP
['DELETE FROM `savepoint_purge`.`dedup_0`.`default` WHERE `ts` <= timestamp_millis(...)']
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.sql_ext.session import attach
from spark_savepoint.sql_ext.transaction import edit

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession

    from spark_savepoint.sql_ext.dry_run import DryRun
    from spark_savepoint.sql_ext.edits import EditReport

PURGE_CATALOG = "savepoint_purge"
EVICTED_KINDS = ("aggregation", "dedup")
"""State kinds whose rows the next batch evicts by ``event_time <= watermark``."""
AGES_KINDS = (*EVICTED_KINDS, "join_side", "join_store", "session_window")
"""State kinds that only a watermark evicts: without an event-time column they only grow."""
TTL_COLUMN = "ttlExpirationMs"
UNCOUNTED_KINDS = ("join_store",)
"""A join's stores hold its sides' rows: counted (and purged) through the sides."""


@dataclass(frozen=True)
class Rules:
    """What to count or purge: evictable rows, expired TTL values, rows older than a time."""

    watermark_ms: int = 0
    """The watermark the next batch evicts by (epoch ms; 0: none yet)."""
    at_ms: int = field(default_factory=lambda: int(time.time() * 1000))
    """When TTL values count as expired (epoch ms; default: now)."""
    older_than: str | None = None
    """A SQL timestamp expression, e.g. ``TIMESTAMP '2026-01-01 00:00:00'``."""
    column: str | None = None
    """The column ``older_than`` applies to in tables without an event-time column."""

    def predicates(self, meta: Row, columns: list[str]) -> dict[str, str]:
        """Per rule that applies to the table (``meta``: its ``<catalog>.metadata`` row), the
        SQL predicate that selects its rows: ``evictable``, ``expired``, ``older``."""
        rules = {}
        if meta.state_kind in EVICTED_KINDS and meta.event_time:
            rules["evictable"] = f"{meta.event_time} <= timestamp_millis({self.watermark_ms})"
        if TTL_COLUMN in columns:
            rules["expired"] = f"`{TTL_COLUMN}` <= {self.at_ms}"
        time_column = meta.event_time or (
            f"`{self.column}`" if self.column and self.column in columns else None
        )
        if self.older_than is not None and time_column and meta.state_kind not in UNCOUNTED_KINDS:
            rules["older"] = f"{time_column} < {self.older_than}"
        return rules


@dataclass(frozen=True)
class TableHygiene:
    """One state table: its rows, and how many of them each rule selects (None: the rule does
    not apply to it)."""

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

    @property
    def share(self) -> float | None:
        """The purgeable rows' share of the table's rows (None when empty)."""
        return self.purgeable / self.rows if self.rows else None


@dataclass(frozen=True)
class Hygiene:
    """What :func:`hygiene` found, per state table."""

    checkpoint: str
    batch_id: int
    rules: Rules
    tables: tuple[TableHygiene, ...]


def never_evicted(meta: list[Row]) -> set[int]:
    """The operator ids among ``meta`` (``<catalog>.metadata`` rows) whose state only a watermark
    evicts and none of whose tables has an event-time column."""
    kinds: dict[int, bool] = {}
    for m in meta:
        if m.operator_id is not None and m.state_kind in AGES_KINDS:
            kinds[m.operator_id] = kinds.get(m.operator_id, False) or bool(m.event_time)
    return {op for op, aged in kinds.items() if not aged}


def counts_sql(rules: dict[str, str]) -> str:
    """``count_if`` columns for ``rules`` and one for any of them (``purgeable``)."""
    any_rule = " OR ".join(f"({p})" for p in rules.values()) or "false"
    return ", ".join(
        [*(f"count_if({p}) AS {name}" for name, p in rules.items()),
         f"count_if({any_rule}) AS purgeable"]
    )  # fmt: skip


def timestamp_sql(value: datetime | str) -> str:
    """A SQL timestamp for ``value``: an aware datetime as its instant, a naive one or an ISO
    string in the session's time zone.

    >>> timestamp_sql("2026-01-01 10:00")
    "TIMESTAMP '2026-01-01 10:00:00'"
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise BadArguments(
                f"'{value}' is no time: give one as 2026-01-01 10:00:00 (session time zone) or"
                " 2026-01-01T10:00:00+00:00."
            ) from None
    if value.tzinfo is not None:
        return f"timestamp_millis({int(value.timestamp() * 1000)})"
    return f"TIMESTAMP '{value.isoformat(sep=' ')}'"


def hygiene(
    spark: SparkSession,
    path: str,
    *,
    older_than: datetime | str | None = None,
    column: str | None = None,
    at: datetime | None = None,
    catalog: str = PURGE_CATALOG,
) -> Hygiene:
    """Count, per state table of the checkpoint at ``path`` (last committed batch), what the
    next batch evicts, the expired TTL values (as of ``at``, default now) and, with
    ``older_than``, the rows before that event time (``column``: in tables without an
    event-time column). One Spark job per table."""
    batch_id, rules, meta = _attach(spark, path, catalog, older_than, column, at)
    unbounded = never_evicted(meta)
    tables = []
    for m in meta:
        if m.state_kind in UNCOUNTED_KINDS:
            continue
        name = _quoted(m.table_name)
        predicates = rules.predicates(m, spark.table(name).columns)
        (row,) = spark.sql(f"SELECT count(*) AS n, {counts_sql(predicates)} FROM {name}").collect()
        values = row.asDict()
        tables.append(
            TableHygiene(
                m.table_name.split(".", 1)[1], m.state_kind, m.event_time, int(values["n"]),
                **{k: int(values[k]) for k in ("evictable", "expired", "older") if k in values},
                purgeable=int(values["purgeable"]),
                never_evicted=m.operator_id in unbounded,
            )
        )  # fmt: skip
    return Hygiene(path, batch_id, rules, tuple(tables))


@dataclass(frozen=True)
class Purge:
    """What purging did: the DELETE statements, and the commit (or the plan)."""

    statements: list[str]
    report: EditReport | None = None
    planned: list[DryRun] | None = None


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
    catalog: str = PURGE_CATALOG,
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
        BadArguments: nothing to purge by (no rule), an unknown table, a bad time.
    """
    if not (evictable or expired or older_than is not None):
        raise BadArguments(
            f"Nothing to purge in '{path}' by: keep evictable or expired rows in, or give a time"
            " older rows are purged before (--older-than)."
        )
    _, rules, meta = _attach(spark, path, catalog, older_than, column, at)
    chosen = _chosen(meta, tables, path)
    statements, evicts = [], False
    for m in chosen:
        name = _quoted(m.table_name)
        predicates = rules.predicates(m, spark.table(name).columns)
        if not (evictable and (aggregations or m.state_kind != "aggregation")):
            predicates.pop("evictable", None)
        if not expired:
            predicates.pop("expired", None)
        evicts = evicts or "evictable" in predicates
        if predicates:
            where = " OR ".join(f"({p})" for p in predicates.values())
            statements.append(f"DELETE FROM {name} WHERE {where}")
    if not statements:
        return Purge([])
    with edit(spark, dry_run=dry_run, evicts=evicts) as tx:
        for statement in statements:
            tx.sql(statement)
        planned = tx.plan() if dry_run else None
    return Purge(statements, tx.report, planned)


def describe_purge(spark: SparkSession, path: str, **options: object) -> str:
    """``spark-savepoint purge``: the statements, then the commit (or with ``dry_run`` what each
    would delete)."""
    done = purge(spark, path, **options)  # type: ignore[arg-type]
    if not done.statements:
        return f"nothing to purge in '{path}': no state table has rows the rules select"
    lines = [f"purge of '{path}':", *(f"  {s}" for s in done.statements)]
    if done.planned is not None:
        lines += [f"  {planned.summary}" for planned in done.planned]
        lines.append("dry run: nothing was written")
    elif done.report is not None:
        lines.append(done.report.summary)
    return "\n".join(lines)


def _attach(
    spark: SparkSession,
    path: str,
    catalog: str,
    older_than: datetime | str | None,
    column: str | None,
    at: datetime | None,
) -> tuple[int, Rules, list[Row]]:
    """Attach ``path``; its last committed batch, the rules as of it, its state tables."""
    older = None if older_than is None else timestamp_sql(older_than)
    attach(spark, path, catalog)
    (batch_id, watermark) = spark.sql(
        f"SELECT batch_id, next_watermark_ms FROM `{catalog}`.query.batches WHERE committed"
        " ORDER BY batch_id DESC LIMIT 1"
    ).collect()[0]
    meta = [
        m for m in spark.sql(f"SELECT * FROM `{catalog}`.metadata").collect()
        if m.operator_id is not None
    ]  # fmt: skip
    rules = Rules(int(watermark or 0), older_than=older, column=column)
    if at is not None:
        rules = Rules(rules.watermark_ms, int(at.timestamp() * 1000), older, column)
    if column and not any(column in spark.table(_quoted(m.table_name)).columns for m in meta):
        raise BadArguments(
            f"No state table of checkpoint '{path}' has a column '{column}': name a column of"
            f" one (see `{catalog}`.metadata), or leave --column out to use event-time columns."
        )
    return int(batch_id), rules, meta


def _chosen(meta: list[Row], tables: list[str] | None, path: str) -> list[Row]:
    rows = [m for m in meta if m.state_kind not in UNCOUNTED_KINDS]
    if not tables:
        return rows
    by_name = {m.table_name.split(".", 1)[1]: m for m in rows}
    unknown = [t for t in tables if t not in by_name]
    if unknown:
        raise BadArguments(
            f"Checkpoint '{path}' has no state table {', '.join(unknown)}: name them as uid.state"
            f" ({', '.join(sorted(by_name))})."
        )
    return [by_name[t] for t in tables]


def _quoted(table_name: str) -> str:
    return ".".join(f"`{part}`" for part in table_name.split(".", 2))
