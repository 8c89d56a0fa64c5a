"""Fix-a-key walkthrough: correct a counter, drop a poisoned key, restart, roll back.

    python examples/fix_a_key.py [--dir DIR]

1. A word count runs over two files; a replayed file over-counted "spark", and a junk word
   "%%%" got in.
2. A dry run shows what the fix would change (nothing written); then one INSERT (upsert by
   key) sets the right counter, one DELETE removes the junk key. Each
   statement is one new committed batch of the checkpoint: nothing else changes. A statement
   that changes nothing commits no batch; ``last_edit`` says what each one did.
3. The real streaming query restarts on the edited checkpoint with new input: "spark" continues
   from the fixed value, "%%%" starts over.
4. Rollback: INSERT OVERWRITE ... SELECT ... VERSION AS OF <batch> restores an earlier state
   (as one more batch; history stays readable).
"""

from __future__ import annotations

from pathlib import Path

from wordcount import example_session, run_example, run_word_count, show, write_events

from spark_savepoint import attach, dry_run, last_edit


def main(root: Path) -> None:
    events, checkpoint = root / "events", root / "checkpoint"
    write_events(events, ["spark", "state", "%%%"])
    write_events(events, ["spark", "state", "spark"])  # "spark" replayed: one too many

    spark = example_session()
    run_word_count(spark, events, checkpoint)
    attach(spark, str(checkpoint))
    show(spark, "SELECT * FROM savepoint.agg_0.default ORDER BY word")
    before_fix = spark.sql("SELECT max_batch_id FROM savepoint.metadata").first()[0]

    # 2. fix: spark was seen twice (10 letters), not three times; %%% must go
    fix = "INSERT INTO savepoint.agg_0.default (word, seen, letters) VALUES ('spark', 2, 10)"
    planned = dry_run(spark, fix)  # what it would change; nothing is written
    print(planned.summary, planned.samples)  # ... 0 added, 1 changed ... ['[spark]: [3,15] -> ...']
    assert (planned.added, planned.changed, planned.removed) == (0, 1, 0), planned
    spark.sql(fix)
    spark.sql("DELETE FROM savepoint.agg_0.default WHERE word = '%%%'")
    print(last_edit(spark).summary)  # savepoint: agg_0.default: 0 entries written, 1 removed: ...
    spark.sql("DELETE FROM savepoint.agg_0.default WHERE word = 'nosuchword'")
    print(last_edit(spark).summary)  # changed nothing: no batch committed
    show(spark, "SELECT * FROM savepoint.agg_0.default ORDER BY word")
    show(spark, "SELECT uid, state, min_batch_id, max_batch_id FROM savepoint.metadata")

    # 3. restart the real query with new input
    write_events(events, ["spark", "%%%"])
    output = run_word_count(spark, events, checkpoint)
    print(f"\nrestarted query output: {output}")
    assert output["spark"] == (3, 15), output  # continued from the fixed 2
    assert output["%%%"] == (1, 3), output  # started over

    # 4. roll back to the state before the fix (as a new batch)
    spark.sql(
        "INSERT OVERWRITE savepoint.agg_0.default "
        f"SELECT * FROM savepoint.agg_0.default VERSION AS OF {before_fix}"
    )
    show(spark, "SELECT * FROM savepoint.agg_0.default ORDER BY word")
    print(f"checkpoint: {checkpoint}")
    spark.stop()


if __name__ == "__main__":
    run_example(main, __doc__, "fix")
