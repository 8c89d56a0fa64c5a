"""Rescale a stateful query: take a savepoint, restore it onto 8 partitions and RocksDB, restart.

    python examples/rescale.py [--dir DIR]

1. A word count runs over two files on 4 shuffle partitions, its state in Spark's default
   HDFS-backed state store. Spark freezes both in the checkpoint: setting
   ``spark.sql.shuffle.partitions`` later changes nothing for this query.
2. ``take_savepoint`` copies the last committed batch into a self-contained folder, with a
   manifest (``_savepoint.json``: operators, rows, every file's size and SHA-256).
3. The checkpoint is deleted: the savepoint is all that is left of the state.
4. ``restore_savepoint`` checks the files against the manifest and writes a new checkpoint with
   8 partitions (every key rehashed with Spark's own partitioner) and RocksDB state; its offset
   log records both, so the restarted query runs with them.
5. The query restarts on the restored checkpoint with new input and continues from the counts
   it had.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from wordcount import example_session, run_example, run_word_count, show, write_events

from spark_savepoint import attach, restore_savepoint, take_savepoint


def main(root: Path) -> None:
    events, checkpoint, savepoint = root / "events", root / "checkpoint", root / "savepoint"
    write_events(events, ["spark", "state", "savepoint"])
    write_events(events, ["spark", "rescale"])

    spark = example_session()
    run_word_count(spark, events, checkpoint)

    # 2. take a savepoint of the last committed batch
    manifest = take_savepoint(spark, str(checkpoint), str(savepoint))
    print(json.dumps({k: manifest[k] for k in ("batch_id", "provider", "partitions", "rows")}))

    # 3. the checkpoint goes; 4. the savepoint comes back with 8 partitions on RocksDB
    shutil.rmtree(checkpoint)
    print(restore_savepoint(spark, str(savepoint), str(checkpoint), partitions=8,
                            provider="rocksdb"))  # fmt: skip
    attach(spark, str(checkpoint))
    show(spark, "SELECT uid, num_partitions, provider FROM savepoint.metadata")
    show(spark, "SELECT * FROM savepoint.agg_0.default ORDER BY word")

    # 5. the real query continues on the restored checkpoint
    write_events(events, ["spark", "state"])
    output = run_word_count(spark, events, checkpoint)
    print(f"\nrestarted query output: {output}")
    assert output["spark"] == (3, 15), output  # two before the savepoint, one after
    assert output["state"] == (2, 10), output
    partitions = [p for p in (checkpoint / "state" / "0").iterdir() if p.name.isdigit()]
    assert len(partitions) == 8, partitions
    print(f"checkpoint: {checkpoint}")
    spark.stop()


if __name__ == "__main__":
    run_example(main, __doc__, "rescale")
