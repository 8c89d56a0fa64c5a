"""An interrupted edit whose writer may still run elsewhere: refused, then recovered by hand.

The halted-writer cases (tests/test_write_crash.py) recover on their own, since the writer ran
on this host and is gone. Here the claim names another host, as when the edit ran on another
machine: nothing proves that writer stopped.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from spark_savepoint import attach, recover
from spark_savepoint.catalog import bridge
from spark_savepoint.sql_ext.cli import main
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.streaming_queries import StreamingQuery, build, restart_rows

EDIT = "INSERT INTO rec.agg_0.default VALUES ('dave', 10, 100)"


def interrupt(query: StreamingQuery, host: str = "elsewhere", pid: int = 4242) -> int:
    """Leaves batch N+1 as an edit of process ``pid`` on ``host`` leaves it while it writes, or
    when it was killed: claimed and planned, not committed."""
    n = last_batch(query.checkpoint)
    shutil.copy(query.checkpoint / "offsets" / str(n), query.checkpoint / "offsets" / str(n + 1))
    edits = query.checkpoint / "_savepoint" / "edits"
    edits.mkdir(parents=True)
    (edits / f"{n + 1}.0b1d.json").write_text(
        json.dumps(
            {
                "batch": n + 1,
                "edit": "upsert into savepoint state agg_0.default",
                "host": host,
                "pid": pid,
                "processStartedMs": -1,
                "claimedAt": "2026-11-22T10:00:00Z",
            }
        )
    )
    return n + 1


def test_edit_in_progress_on_this_host_is_a_concurrent_write(
    spark, checkpoints, tmp_path: Path
) -> None:
    """A claim whose writer runs on this host (here: this very JVM) is an edit in progress,
    not an interrupted one: the write backs off, and recover refuses even with force."""
    query = checkpoints[("agg", "hdfs")].copy(tmp_path / "query")
    batch = interrupt(query, *bridge.driver_process(spark))
    attach(spark, str(query.checkpoint), "rec")
    before = snapshot(query.checkpoint)
    busy = (
        rf"SAVEPOINT_CONCURRENT_WRITE\] Cannot commit batch {batch} of checkpoint"
        rf" '{query.checkpoint}': another edit is writing it \(upsert into savepoint state"
        r" agg_0\.default by pid \d+ on host .*run it again"
    )
    with pytest.raises(Exception, match=busy):
        spark.sql(EDIT)
    with pytest.raises(Exception, match=busy):
        recover(spark, str(query.checkpoint), force=True)
    assert snapshot(query.checkpoint) == before


@pytest.mark.slow
def test_interrupted_edit_of_another_host_is_refused_then_recovered(
    spark, tmp_path: Path, capsys
) -> None:
    query = build(spark, "agg", "hdfs", tmp_path / "query")
    batch = interrupt(query)
    attach(spark, str(query.checkpoint), "rec")
    before = snapshot(query.checkpoint)
    refusal = (
        rf"SAVEPOINT_INTERRUPTED_EDIT\] Batch {batch} of checkpoint"
        rf" '{query.checkpoint}' was claimed by an edit that has not committed"
        r" \(upsert into savepoint state agg_0\.default by pid 4242 on host elsewhere.*"
        rf"spark-savepoint recover {query.checkpoint} --force"
    )
    with pytest.raises(Exception, match=refusal):
        spark.sql(EDIT)
    with pytest.raises(Exception, match=refusal):
        recover(spark, str(query.checkpoint))
    assert snapshot(query.checkpoint) == before

    assert main(["recover", str(query.checkpoint), "--force"]) == 0
    assert capsys.readouterr().out.strip() == (
        f"savepoint: recovered '{query.checkpoint}': completed batch {batch} without its"
        f" changes (the state is that of batch {batch - 1}): it was planned by an edit that was"
        " interrupted before it committed (upsert into savepoint state agg_0.default by pid"
        " 4242 on host elsewhere, claimed 2026-11-22T10:00:00Z)"
    )
    assert last_batch(query.checkpoint) == batch
    assert recover(spark, str(query.checkpoint)).startswith("savepoint: nothing to recover")
    spark.sql(EDIT)
    query.add_input(restart_rows("agg"))
    assert query.run(spark) == [
        {"user": "alice", "cnt": 4, "total": 25},
        {"user": "dave", "cnt": 11, "total": 108},
    ]
