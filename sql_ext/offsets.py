"""Where a query's sources stand, as ``spark-savepoint offsets`` prints it: one line per source
(per topic partition for Kafka) after a line on the batch, from ``<catalog>.sources.offsets``
and ``<catalog>.query.batches``.

>>> print(describe(spark, "/data/ckpt"))  # doctest: +SKIP
batch 3 of '/data/ckpt': committed 2026-11-23 09:36:40.500000, watermark 2026-11-23 ...
  source 0  kafka  orders/0  offset 12  Kafka topic orders, partition 0: the next offset ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spark_savepoint.sql_ext.session import DEFAULT_CATALOG, attach

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession


def describe(
    spark: SparkSession, path: str, batch: int | None = None, catalog: str = DEFAULT_CATALOG
) -> str:
    """The positions of the checkpoint's sources after batch ``batch`` (default: the last
    committed), one line each, under a line naming the batch, its commit time and watermark.
    Attaches the checkpoint as ``catalog`` (whose table names the lines mention)."""
    attach(spark, path, catalog)
    as_of = "" if batch is None else f" VERSION AS OF {int(batch)}"
    positions = spark.sql(f"SELECT * FROM {catalog}.sources.offsets{as_of}").collect()
    batch_id = positions[0].batch_id if positions else _last_committed(spark, catalog)
    (info,) = spark.sql(
        f"SELECT * FROM {catalog}.query.batches WHERE batch_id = {batch_id}"
    ).collect()
    lines = [_batch_line(path, info)]
    lines += [_source_line(p) for p in positions] or ["  (the query has no sources)"]
    return "\n".join(lines)


def _last_committed(spark: SparkSession, catalog: str) -> int:
    row = spark.sql(f"SELECT max(batch_id) AS b FROM {catalog}.query.batches WHERE committed")
    last = row.first()
    assert last is not None  # an aggregate returns one row
    return int(last.b)


def _batch_line(path: str, info: Row) -> str:
    watermark = (
        f"watermark {info.watermark} ({info.watermark_ms} ms)" if info.watermark else "no watermark"
    )
    return f"batch {info.batch_id} of '{path}': committed {info.committed_at}, {watermark}"


def _source_line(p: Row) -> str:
    where = f"{p.topic}/{p.partition}" if p.topic is not None else "-"
    offset = "no offset" if p.offset is None else f"offset {p.offset}"
    return f"  source {p.source_id}  {p.source}  {where}  {offset}  {p.description}"
