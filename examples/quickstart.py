"""Quick start: run a real stateful streaming query, then read its state with SQL.

    python examples/quickstart.py [--dir DIR]

Builds a word-count checkpoint (two micro-batches) in DIR (a temp folder by default), attaches
it as the catalog ``savepoint`` and shows the namespaces, tables, state and metadata.
"""

from __future__ import annotations

from pathlib import Path

from wordcount import example_session, run_example, run_word_count, show, write_events

from spark_savepoint import attach


def main(root: Path) -> None:
    events, checkpoint = root / "events", root / "checkpoint"
    write_events(events, ["spark", "state", "spark"])
    write_events(events, ["savepoint", "spark"])

    spark = example_session()
    run_word_count(spark, events, checkpoint)
    attach(spark, str(checkpoint))  # now readable as savepoint.<uid>.<state>

    show(spark, "SHOW NAMESPACES IN savepoint")
    show(spark, "SHOW TABLES IN savepoint.agg_0")
    show(spark, "DESCRIBE savepoint.agg_0.default")
    show(spark, "SELECT * FROM savepoint.agg_0.default ORDER BY word")
    show(spark, "SELECT * FROM savepoint.agg_0.default VERSION AS OF 0 ORDER BY word")
    show(
        spark,
        "SELECT uid, state, state_kind, key_schema, value_schema, provider, "
        "max_batch_id FROM savepoint.metadata",
    )
    show(spark, f"SELECT word, seen FROM savepoint_state('{checkpoint}', 'agg_0', 'default')")
    print(f"checkpoint: {checkpoint}")
    spark.stop()


if __name__ == "__main__":
    run_example(main, __doc__, "quickstart")
