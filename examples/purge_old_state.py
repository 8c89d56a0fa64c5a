"""Purge state the next batch would drop anyway: a dropDuplicates stopped before its eviction.

    python examples/purge_old_state.py [--dir DIR]

1. A dropDuplicates of click events by (click, ts) with a one-minute watermark runs over two
   files. Spark evicts a click's state once the watermark passes its time, but at the end of the
   *next* batch: the query stopped, the clicks under the watermark stay in its state.
2. ``hygiene`` counts them per state table (``inspect`` shows the same), with their share.
3. ``purge`` with ``dry_run`` says what it would delete; then it deletes them as one edit batch,
   which runs that watermark as a Spark no-data batch does.
4. The query restarts: a late duplicate is dropped, a new click is emitted, as without the purge.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from wordcount import example_session, run_example, show

from spark_savepoint import attach, hygiene, purge


def write_clicks(folder: Path, clicks: list[tuple[int, str]]) -> None:
    """One more input file (= one more micro-batch), modified after the ones before: the file
    source reads files in the order of their modification times."""
    folder.mkdir(parents=True, exist_ok=True)
    count = len(list(folder.glob("clicks-*.json")))
    name = folder / f"clicks-{count}.json"
    name.write_text("".join(json.dumps({"click": c, "ts": f"2026-01-01 {t}"}) + "\n"
                            for c, t in clicks))  # fmt: skip
    stamp = time.time() + count
    os.utime(name, (stamp, stamp))


def run_dedup(spark, clicks: Path, checkpoint: Path) -> list[int]:
    """Run (or restart) the query until it has read every file; the clicks it emitted."""
    emitted: list[int] = []
    query = (
        spark.readStream.schema("click BIGINT, ts TIMESTAMP")
        .option("maxFilesPerTrigger", 1)
        .json(str(clicks))
        .withWatermark("ts", "1 minute")
        .dropDuplicates(["click", "ts"])
        .writeStream.foreachBatch(lambda b, _: emitted.extend(r.click for r in b.collect()))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    return sorted(emitted)


def main(root: Path) -> None:
    clicks, checkpoint = root / "clicks", root / "checkpoint"
    write_clicks(clicks, [(1, "10:00:00"), (2, "10:01:00"), (3, "10:02:00")])
    write_clicks(clicks, [(4, "10:05:00")])
    spark = example_session()
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    run_dedup(spark, clicks, checkpoint)

    # 2. what the next batch would evict (under the watermark 10:04)
    (table,) = hygiene(spark, str(checkpoint)).tables
    print(f"{table.table}: {table.rows} rows, {table.evictable} evictable ({table.share:.0%})")

    # 3. purge: first what it would do, then as one edit batch
    print(purge(spark, str(checkpoint), dry_run=True).planned[0])
    print(purge(spark, str(checkpoint)).summary)
    attach(spark, str(checkpoint))
    show(spark, "SELECT click, ts FROM savepoint.dedup_0.default ORDER BY click")

    # 4. a late duplicate of the purged click 3 is dropped; click 5 is new
    write_clicks(clicks, [(3, "10:02:00"), (5, "10:06:00")])
    output = run_dedup(spark, clicks, checkpoint)
    print(f"\nrestarted query output: {output}")
    assert output == [5], output
    spark.stop()


if __name__ == "__main__":
    run_example(main, __doc__, "purge")
