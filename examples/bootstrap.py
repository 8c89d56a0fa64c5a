"""Bootstrap walkthrough: seed a streaming query's state from history instead of replaying it.

    python examples/bootstrap.py [--dir DIR]

1. A new word-count query starts on today's events only (one micro-batch).
2. Months of history sit in a table. INSERT OVERWRITE replaces the query's state with the
   state computed from history plus what the query already counted, in one statement (one new
   committed batch).
3. The real streaming query restarts with new input and continues from the bootstrapped
   counts.
4. A new checkpoint for the same query (say, after a code change that needs a fresh
   checkpointLocation): an empty savepoint shaped like the old checkpoint, bootstrapped with the
   old state by one INSERT, is where the new run starts; it reads only input after the old
   query's position.
"""

from __future__ import annotations

from pathlib import Path

from wordcount import example_session, run_example, run_word_count, show, write_events

from spark_savepoint import attach, create_savepoint


def main(root: Path) -> None:
    events, checkpoint = root / "events", root / "checkpoint"
    write_events(events, ["spark", "kafka"])  # today

    spark = example_session()
    run_word_count(spark, events, checkpoint)
    attach(spark, str(checkpoint))

    history = ["spark"] * 40 + ["state"] * 7 + ["kafka"] * 3  # e.g. last quarter's events
    spark.createDataFrame([(w,) for w in history], "word STRING").createOrReplaceTempView("history")
    # state = the aggregation's values (the query's seen, letters) of history and of what the
    # query already saw
    spark.sql("""
        INSERT OVERWRITE savepoint.agg_0.default
        SELECT word, sum(seen) AS seen, sum(letters) AS letters FROM (
            SELECT word, count(*) AS seen, sum(length(word)) AS letters FROM history GROUP BY word
            UNION ALL
            SELECT word, seen, letters FROM savepoint.agg_0.default
        ) GROUP BY word
    """)
    show(spark, "SELECT * FROM savepoint.agg_0.default ORDER BY word")

    write_events(events, ["spark", "state"])
    output = run_word_count(spark, events, checkpoint)
    print(f"\nrestarted query output: {output}")
    assert output["spark"] == (42, 210), output  # 40 from history + 1 today + 1 new
    assert output["state"] == (8, 40), output
    print(f"checkpoint: {checkpoint}")

    new_checkpoint = root / "checkpoint-v2"
    print(create_savepoint(spark, str(new_checkpoint), like=str(checkpoint)))
    attach(spark, str(new_checkpoint), "v2")
    spark.sql("INSERT INTO v2.agg_0.default SELECT * FROM savepoint.agg_0.default")
    write_events(events, ["state"])
    output = run_word_count(spark, events, new_checkpoint)
    print(f"new checkpoint's first output: {output}")
    assert output == {"state": (9, 45)}, output  # continues from the migrated count
    print(f"new checkpoint: {new_checkpoint}")
    spark.stop()


if __name__ == "__main__":
    run_example(main, __doc__, "bootstrap")
