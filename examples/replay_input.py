"""Replay walkthrough: undo a bad input file, then read its corrected version.

    python examples/replay_input.py [--dir DIR]

1. A word count runs over two files, one micro-batch each; the second file was bad (the word
   "junk" twice instead of "stream").
2. The file is corrected in place, but a file source never reads a file twice. Two edits undo
   the bad batch: the state goes back to batch 0's (``INSERT OVERWRITE ... VERSION AS OF 0``),
   and the source's position too (``UPDATE savepoint.sources.offsets``), so the restarted query
   reads again what its log lists after entry 0: the corrected file.
3. The real query restarts and reads the corrected file into the restored state: "junk" is gone,
   "stream" is counted, "spark" is counted once per file.
"""

from __future__ import annotations

import json
from pathlib import Path

from wordcount import example_session, run_example, run_word_count, show, write_events

from spark_savepoint import attach, last_edit


def main(root: Path) -> None:
    events, checkpoint = root / "events", root / "checkpoint"
    write_events(events, ["spark", "state"])
    write_events(events, ["spark", "junk", "junk"])  # bad: should have been spark, stream

    spark = example_session()
    run_word_count(spark, events, checkpoint)
    attach(spark, str(checkpoint))
    show(spark, "SELECT word, seen FROM savepoint.agg_0.default ORDER BY word")
    show(spark, "SELECT batch_id, source, offset, description FROM savepoint.sources.offsets")
    show(spark, "SELECT log_offset, path FROM savepoint.sources.files ORDER BY log_offset")

    # 2. correct the file, then undo batch 1: its state, and its position in the input
    corrected = [{"word": word, "n": len(word)} for word in ["spark", "stream"]]
    (events / "events-1.json").write_text("".join(json.dumps(e) + "\n" for e in corrected))
    spark.sql(
        "INSERT OVERWRITE savepoint.agg_0.default "
        "SELECT * FROM savepoint.agg_0.default VERSION AS OF 0"
    )
    print(last_edit(spark).summary)
    spark.sql("UPDATE savepoint.sources.offsets SET offset = 0")
    print(last_edit(spark).summary)
    show(spark, "SELECT batch_id, source, offset FROM savepoint.sources.offsets")

    # 3. restart the real query: it reads the corrected file into the restored state
    output = run_word_count(spark, events, checkpoint)
    print(f"\nrestarted query output: {dict(sorted(output.items()))}")
    assert output == {"spark": (2, 10), "stream": (1, 6)}, output
    show(spark, "SELECT word, seen FROM savepoint.agg_0.default ORDER BY word")
    print(f"checkpoint: {checkpoint}")
    spark.stop()


if __name__ == "__main__":
    run_example(main, __doc__, "replay")
