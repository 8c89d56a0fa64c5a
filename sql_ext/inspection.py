"""``inspect``: what a checkpoint holds, per operator and state table.

What the files say comes without a Spark job: operators, tables and partitions from
``<catalog>.metadata``, batches and commit times from ``<catalog>.query.batches`` (the
``offsets/`` and ``commits/`` logs), bytes from one listing of ``state/`` through Hadoop's
``FileSystem`` (see :mod:`spark_savepoint.sql_ext.state_files` for what the bytes of a batch
are). Rows per partition need one Spark job per state table
(``SELECT partition_id, count(*) ... GROUP BY partition_id``); ``rows=False`` skips them. A
join's internal stores (``left_keyToNumValues`` ...) are not counted: their rows are the
sides' rows.

Skew is the largest partition's rows divided by the median partition's rows (every partition
counts, empty ones too): 1.0 is even; it is None when the median is 0 (an empty state, or more
than half of the partitions empty).

>>> skew([4, 2, 2, 0]), skew([5]), skew([0, 0, 0]), skew([3, 0, 0]), skew([])
(2.0, 1.0, None, None, None)
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from spark_savepoint.sql_ext import procedures
from spark_savepoint.sql_ext.hygiene import TableHygiene, hygiene
from spark_savepoint.sql_ext.session import DEFAULT_CATALOG, attach
from spark_savepoint.sql_ext.state_files import StateFiles

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession


def skew(rows: Sequence[int]) -> float | None:
    """Largest partition's rows / median partition's rows; None when the median is 0."""
    if not rows:
        return None
    median = statistics.median(rows)
    return max(rows) / median if median else None


@dataclass(frozen=True)
class TableStats:
    """One state table: its partitions and, when counted, its rows per partition."""

    table: str
    """``<catalog>.<uid>.<state>``."""
    state: str
    state_kind: str
    partitions: int
    rows_per_partition: tuple[int, ...] | None = None
    """Index = partition id; None when rows were not counted."""
    event_time: str | None = None
    """The column the watermark evicts the rows by (``metadata.event_time``), if any."""
    evictable: int | None = None
    """Rows the next batch evicts under the watermark (aggregation, dropDuplicates), when
    counted; see :mod:`spark_savepoint.sql_ext.hygiene`."""
    expired: int | None = None
    """Values whose TTL has expired, not yet cleaned up (transformWithState), when counted."""

    @property
    def rows(self) -> int | None:
        return None if self.rows_per_partition is None else sum(self.rows_per_partition)

    @property
    def largest(self) -> int | None:
        return max(self.rows_per_partition, default=0) if self.rows_per_partition else None

    @property
    def median(self) -> float | None:
        rows = self.rows_per_partition
        return statistics.median(rows) if rows else None

    @property
    def skew(self) -> float | None:
        return None if self.rows_per_partition is None else skew(self.rows_per_partition)


@dataclass(frozen=True)
class OperatorStats:
    """One stateful operator: its state tables and files."""

    uid: str
    operator_id: int
    operator_name: str
    partitions: int
    bytes_on_disk: int
    """All files of ``state/<operator id>/``: every version kept, metadata, schemas."""
    partition_bytes: tuple[int, ...]
    """Bytes on disk per partition folder, index = partition id."""
    versions: tuple[int, int] | None
    """(oldest, newest) state version with files on disk (version = batch id + 1)."""
    tables: tuple[TableStats, ...]
    never_evicted: bool = False
    """An aggregation, dropDuplicates or join no watermark evicts: it keeps every key."""


@dataclass(frozen=True)
class BatchStats:
    """One batch of the query's logs."""

    batch_id: int
    committed: bool
    committed_at: str | None
    written: dict[str, int] = field(default_factory=dict)
    """Operator uid -> bytes of state files the batch wrote."""


@dataclass(frozen=True)
class Inspection:
    """What ``spark-savepoint inspect`` reports about one checkpoint."""

    checkpoint: str
    batch_id: int
    """The batch described (rows are counted at it): the last committed, or the one asked."""
    provider: str
    spark_version: str
    operators: tuple[OperatorStats, ...]
    batches: tuple[BatchStats, ...]
    rows_counted: bool
    warnings: tuple[str, ...] = ()
    """What a reader of the batch should know that refuses nothing (``metadata.warnings``): log
    files changed by hand after Spark wrote them, which read as Spark reads them."""

    @property
    def committed(self) -> list[int]:
        """Committed batches whose log entries the checkpoint keeps."""
        return [b.batch_id for b in self.batches if b.committed]

    @property
    def last_commit(self) -> str | None:
        done = [b for b in self.batches if b.committed]
        return done[-1].committed_at if done else None

    def as_dict(self) -> dict[str, Any]:
        """Plain values (for JSON), with each table's rows, largest, median and skew."""
        values = asdict(self)
        for op, stats in zip(values["operators"], self.operators, strict=True):
            for table, t in zip(op["tables"], stats.tables, strict=True):
                table.update(rows=t.rows, largest=t.largest, median=t.median, skew=t.skew)
        values.update(committed_batches=self.committed, last_commit=self.last_commit)
        return values


def inspect_checkpoint(
    spark: SparkSession,
    path: str,
    batch: int | None = None,
    rows: bool = True,
    catalog: str = DEFAULT_CATALOG,
) -> Inspection:
    """Describe the checkpoint at ``path`` at ``batch`` (default: the last committed), attaching
    it as ``catalog``. ``rows``: count each state table's rows per partition (a Spark job per
    table); without, only the files and logs are read.

    >>> inspect_checkpoint(spark, "/data/ckpt").operators[0].tables[0].skew  # doctest: +SKIP
    1.25
    """
    attach(spark, path, catalog)
    as_of = "" if batch is None else f" VERSION AS OF {int(batch)}"
    listed = spark.sql(f"SELECT * FROM `{catalog}`.metadata{as_of}").collect()
    meta = [r for r in listed if r.operator_id is not None]
    warnings: list[str] = next((r.warnings for r in listed if r.warnings), [])
    # SELECT * and no ORDER BY: the local scan's rows are then collected without a Spark job
    logged = spark.sql(f"SELECT * FROM `{catalog}`.query.batches").collect()
    files = StateFiles.of(procedures.list_files(spark, path.rstrip("/") + "/state"))
    uids = {r.operator_id: r.uid for r in meta}
    last = max((b.batch_id for b in logged if b.committed), default=-1)
    batch_id = last if batch is None else batch
    first = meta[0] if meta else None
    counted = hygiene(spark, path, batch=batch, count=rows).tables
    by_table = {t.table: t for t in counted}
    return Inspection(
        checkpoint=path,
        batch_id=int(batch_id),
        provider=first.provider if first else "-",
        spark_version=first.spark_version if first else "-",
        operators=tuple(
            _operator([r for r in meta if r.operator_id == op], files, by_table, rows)
            for op in sorted(uids)
        ),
        batches=_batches(logged, files, uids),
        rows_counted=rows,
        warnings=tuple(warnings),
    )


def _operator(
    tables: list[Row], files: StateFiles, counted: dict[str, TableHygiene], rows: bool
) -> OperatorStats:
    first = tables[0]
    partitions = int(first.num_partitions)
    on_disk = files.partition_bytes(first.operator_id)
    own = [counted.get(t.table_name.split(".", 1)[1]) for t in tables]
    return OperatorStats(
        uid=first.uid,
        operator_id=int(first.operator_id),
        operator_name=first.operator_name,
        partitions=partitions,
        bytes_on_disk=files.operator_bytes(first.operator_id),
        partition_bytes=tuple(on_disk.get(p, 0) for p in range(partitions)),
        versions=files.versions(first.operator_id),
        tables=tuple(_table(t, c, rows) for t, c in zip(tables, own, strict=True)),
        never_evicted=any(c.never_evicted for c in own if c is not None),
    )


def _table(meta: Row, counted: TableHygiene | None, rows: bool) -> TableStats:
    partitions = int(meta.num_partitions)
    if not rows or counted is None:  # a join's stores are not counted
        return TableStats(meta.table_name, meta.state, meta.state_kind, partitions,
                          event_time=meta.event_time)  # fmt: skip
    per_partition = counted.rows_per_partition
    padded = tuple(per_partition) + (0,) * (partitions - len(per_partition))
    return TableStats(
        meta.table_name, meta.state, meta.state_kind, partitions, padded,
        meta.event_time, counted.evictable, counted.expired,
    )  # fmt: skip


def _batches(logged: list[Row], files: StateFiles, uids: dict[int, str]) -> tuple[BatchStats, ...]:
    written = files.written_by_batch()
    ids = sorted({int(b.batch_id) for b in logged} | set(written))
    by_id = {int(b.batch_id): b for b in logged}
    out = []
    for batch_id in ids:
        row = by_id.get(batch_id)
        sizes = {uids.get(op, f"operator {op}"): n for op, n in written.get(batch_id, {}).items()}
        committed = bool(row is not None and row.committed)
        out.append(BatchStats(batch_id, committed, _time(row.committed_at if row else None), sizes))
    return tuple(out)


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(sep=" ", timespec="milliseconds")
