"""The checkpoint doctor: find a lost state file, repair the checkpoint, restart the query.

    python examples/doctor.py [--dir DIR]

1. A word count runs over three files (batches 0, 1, 2), its state in Spark's default
   HDFS-backed store, which writes one ``.delta`` file per partition and batch.
2. A state file of the last batch goes missing (a failed copy, a cleanup script gone wrong).
3. ``verify`` names it: class ``STATE_FILE_MISSING``, the batch, operator, partition and file,
   and the fix; and ``ORPHAN_CHECKSUM``, the Hadoop checksum file ``rm`` left, on which Spark's
   next write of that file would fail. It changes nothing. The query could not restart.
4. ``repair`` rolls the checkpoint back to batch 1, whose state does not need the lost file: it
   keeps what it changes first (``undo_repair`` would put it back) and ``verify`` finds nothing
   wrong afterwards.
5. The query restarts on the repaired checkpoint: it reads the file of batch 2 again (batch 2
   is no longer committed) and a fourth, and every count comes out as if nothing was lost.
"""

from __future__ import annotations

from pathlib import Path

from wordcount import example_session, run_example, run_word_count, write_events

from spark_savepoint import attach, repair, verify


def main(root: Path) -> None:
    events, checkpoint = root / "events", root / "checkpoint"
    for words in (["spark", "state"], ["spark", "doctor"], ["spark", "state"]):
        write_events(events, words)
    spark = example_session()
    run_word_count(spark, events, checkpoint)

    # 2. a state file of the last batch (version 3 = batch 2 + 1) goes missing
    (checkpoint / "state" / "0" / "1" / "3.delta").unlink()

    # 3. the doctor names it
    verification = verify(spark, str(checkpoint))
    print(verification.verdict)
    for finding in verification.findings:
        print(f"  {finding.severity} {finding.check} {finding.where}\n  fix: {finding.fix}")
    # the file, and (a local disk) Hadoop's checksum file that rm left beside it
    assert [f.check for f in verification.findings] == ["STATE_FILE_MISSING", "ORPHAN_CHECKSUM"]
    assert verification.exit_code == 2

    # 4. the repair: back to the last batch whose state loads
    repaired = repair(spark, str(checkpoint))
    print(repaired.summary)
    print(verify(spark, str(checkpoint)).verdict)
    assert verify(spark, str(checkpoint)).exit_code == 0  # healthy (a word count keeps every word)

    # 5. the real query continues from batch 1: the file of batch 2 again, then a fourth
    write_events(events, ["spark"])
    output = run_word_count(spark, events, checkpoint)
    print(f"\nrestarted query output: {output}")
    assert output["spark"] == (4, 20), output  # one per file: none lost, none counted twice
    attach(spark, str(checkpoint))
    counts = {r.word: (r.seen, r.letters) for r in spark.table("savepoint.agg_0.default").collect()}
    print(f"state after the restart: {counts}")
    assert counts == {"spark": (4, 20), "state": (2, 10), "doctor": (1, 6)}, counts
    spark.stop()


if __name__ == "__main__":
    run_example(main, __doc__, "doctor")
