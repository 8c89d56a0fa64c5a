"""Edits refuse while the checkpoint's streaming query may be running in another driver.

A real ``agg`` query runs with a processing-time trigger in its own process
(``tests/support/live_query.py``); this session tries to edit its checkpoint.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from spark_savepoint import attach, last_edit, restore_savepoint, take_savepoint
from tests.support import start_program
from tests.support.checkpoint_files import last_batch
from tests.support.streaming_queries import StreamingQuery, build, restart_rows

pytestmark = pytest.mark.slow

EDIT = "INSERT INTO live.agg_0.default VALUES ('alice', 100, 1000)"
FORCE = "spark.savepoint.write.force"


def test_edit_refused_while_query_runs_elsewhere_and_allowed_at_once_after_it_stops(
    spark, tmp_path: Path
) -> None:
    """Two applications: A runs the query with the tool's settings (its listener keeps a run
    record with a lease in the checkpoint), B is this session. While A's query runs, B's edit
    is refused, naming A's driver; once A's query stops, B edits at once, without force, and
    the restarted query continues from the edit."""
    root = tmp_path / "live"
    process = start_program("live_query", str(root), cwd=tmp_path, stderr=subprocess.DEVNULL)
    try:
        assert process.stdout is not None and process.stdin is not None
        assert process.stdout.readline().strip() == "running"
        checkpoint = root / "checkpoint"
        attach(spark, str(checkpoint), "live")
        with pytest.raises(
            Exception,
            match=r"SAVEPOINT_QUERY_ALIVE\] Cannot write state"
            rf" agg_0\.default of checkpoint '{checkpoint}'.*it runs: run [0-9a-f-]+ since .*, in"
            r" the driver pid \d+ on host .*last heard from \d+ s ago.*force=true",
        ):
            spark.sql(EDIT)
        assert not (checkpoint / "_savepoint" / "edits").exists()

        process.stdin.write("stop\n")
        process.stdin.flush()
        assert process.stdout.readline().strip() == "stopped"
    finally:
        process.communicate(timeout=120)

    # stopped a moment ago, in another application: its record says so, no force needed
    n = last_batch(checkpoint)
    spark.sql(EDIT)
    report = last_edit(spark)
    assert report is not None and report.batch_id == n + 1 and report.written == 1

    query = StreamingQuery("agg", "hdfs", root)
    query.add_input(restart_rows("agg"))
    alice = [row for row in query.run(spark) if row["user"] == "alice"]
    assert alice == [{"user": "alice", "cnt": 102, "total": 1008}]


def test_force_as_a_write_option(spark, checkpoints, tmp_path: Path) -> None:
    """``df.writeTo(t).option("force", "true")`` skips the liveness guess for one write."""
    checkpoint = checkpoints[("agg", "hdfs")].copy(tmp_path).checkpoint
    (checkpoint / "metadata").write_text('{"id":"00000000-0000-0000-0000-000000000001"}\n')
    (checkpoint / ".metadata.crc").unlink()  # another query's id: one this driver never ran
    for log in ("offsets", "commits"):  # as if its query had just committed a batch elsewhere
        for entry in (checkpoint / log).iterdir():
            os.utime(entry)
    attach(spark, str(checkpoint), "live")
    row = spark.createDataFrame([("zoe", 1, 2)], "user string, cnt long, total long")
    with pytest.raises(Exception, match=r"SAVEPOINT_QUERY_ALIVE"):
        row.writeTo("live.agg_0.default").append()
    row.writeTo("live.agg_0.default").option("force", "true").append()
    assert spark.table("live.agg_0.default").where("user = 'zoe'").count() == 1


def test_a_restored_savepoint_of_an_edit_batch_is_editable_at_once(spark, tmp_path: Path) -> None:
    """A savepoint taken right after an edit, restored: its last batch is the edit's (its
    commit carries the edit's id), not a query's that just ran, so an edit goes ahead at once
    without force, and the query continues from both edits."""
    query = build(spark, "agg", "hdfs", tmp_path / "query")
    attach(spark, str(query.checkpoint), "live")
    spark.conf.set(FORCE, "true")  # its query ran a moment ago in this session
    try:
        spark.sql(EDIT)
    finally:
        spark.conf.unset(FORCE)
    savepoint, restored = tmp_path / "savepoint", tmp_path / "restored"
    take_savepoint(spark, str(query.checkpoint), str(savepoint))
    restore_savepoint(spark, str(savepoint), str(restored / "checkpoint"), partitions=2)
    attach(spark, str(restored / "checkpoint"), "live")
    spark.sql("INSERT INTO live.agg_0.default VALUES ('bob', 50, 500)")
    assert last_edit(spark).batch_id == last_batch(restored / "checkpoint")
    again = StreamingQuery("agg", "hdfs", query.root)
    again.location = str(restored / "checkpoint")
    again.add_input(restart_rows("agg"))
    assert {r["user"]: (r["cnt"], r["total"]) for r in again.run(spark)} == {
        "alice": (102, 1008),
        "dave": (1, 8),
    }
