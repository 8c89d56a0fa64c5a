"""State hygiene: what the next batch evicts under the watermark, expired TTL values and rows
older than a time, counted per state table (``hygiene``, ``inspect``) and purged as one edit
batch (``purge``). The decisive check: a purged checkpoint restarts emitting what the
unpurged one emits after its next batch evicted the same rows, and both end with the same
state. State no watermark evicts is flagged by ``inspect`` and the doctor."""

from __future__ import annotations

import re

import pytest

from spark_savepoint import attach, hygiene, inspect_checkpoint, purge, verify
from spark_savepoint.sql_ext.cli import main
from spark_savepoint.sql_ext.cli.report_text import summary
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.streaming_queries import build

DEDUP = "dedup_0.default"


def state(spark, path, catalog: str) -> list[tuple]:
    attach(spark, str(path), catalog)
    return sorted((r.event_id, str(r.ts)) for r in spark.table(f"{catalog}.{DEDUP}").collect())


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
@pytest.mark.slow
def test_purge_drops_what_the_next_batch_evicts(spark, tmp_path, provider, capsys) -> None:
    """dropDuplicates with a 2-minute watermark, stopped before its next batch: events 2 and 3
    (10:01, 10:02) are under the watermark that batch evicts by (10:04)."""
    purged = build(spark, "dedup_watermark", provider, tmp_path / "purged")
    untouched = build(spark, "dedup_watermark", provider, tmp_path / "untouched")
    path = str(purged.checkpoint)

    (table,) = hygiene(spark, path, older_than="2024-01-01 10:06:00").tables
    assert (table.table, table.event_time, table.rows) == (DEDUP, "`ts`", 3)
    assert (table.evictable, table.expired, table.older, table.purgeable) == (2, None, 2, 2)
    assert table.share == pytest.approx(2 / 3) and not table.never_evicted
    (op,) = inspect_checkpoint(spark, path).operators
    assert (op.tables[0].evictable, op.never_evicted) == (2, False)

    files = snapshot(purged.checkpoint)
    assert main(["purge", path, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "WHERE (`ts` <= timestamp_millis(1704103440000))" in out  # 10:04
    assert "0 added, 0 changed, 2 removed" in out and "dry run: nothing was written" in out
    assert snapshot(purged.checkpoint) == files

    done = purge(spark, path)
    assert done.report.batch_id == last_batch(purged.checkpoint) and done.report.removed == 2
    assert hygiene(spark, path).tables[0].evictable == 0
    assert state(spark, path, "hy_purged") == [(4, "2024-01-01 10:06:00")]

    emitted = purged.restart(spark)
    assert emitted == untouched.restart(spark)
    assert [r["event_id"] for r in emitted] == [5, 6]  # the late duplicate 3 is dropped by both
    assert state(spark, purged.checkpoint, "hy_purged") == \
        state(spark, untouched.checkpoint, "hy_untouched")  # fmt: skip


@pytest.mark.slow
def test_state_no_watermark_evicts_is_flagged(spark, checkpoints) -> None:
    """A running count per user and a dropDuplicates without a watermark keep every key;
    a windowed count is evicted by its window's end."""
    agg = checkpoints[("agg", "hdfs")].checkpoint
    inspection = inspect_checkpoint(spark, str(agg))
    assert inspection.operators[0].never_evicted
    assert "note: agg_0 keeps every key it has seen: no watermark evicts its state" in \
        summary(inspection)  # fmt: skip
    found = [(f.check, f.severity, f.operator_id) for f in verify(spark, str(agg)).findings]
    assert found == [("STATE_NEVER_EVICTED", "info", 0)]
    assert hygiene(spark, str(checkpoints[("dedup", "rocksdb")].checkpoint)).tables[0] \
        .never_evicted  # fmt: skip

    window = checkpoints[("window_agg", "rocksdb")].checkpoint
    attach(spark, str(window), "hy_window")
    (meta,) = spark.sql(
        "SELECT event_time FROM hy_window.metadata WHERE operator_id IS NOT NULL"
    ).collect()
    assert meta.event_time == "`window`.`end`"
    (table,) = hygiene(spark, str(window)).tables
    # the watermark for the next batch is 09:56 (10:06 less 10 minutes): no window ended
    assert (table.evictable, table.never_evicted) == (0, False)
    counted = spark.sql("CALL hy_window.system.hygiene()").collect()  # per partition, in SQL
    assert {(r.table, r.evictable, r.expired) for r in counted} == {("agg_0.default", 0, None)}
    assert sum(r.rows for r in counted) == table.rows
    assert verify(spark, str(window)).findings == ()

    join = checkpoints[("join", "hdfs")].checkpoint
    attach(spark, str(join), "hy_join")
    sides = spark.sql(
        "SELECT state, event_time FROM hy_join.metadata WHERE state_kind = 'join_side'"
    ).collect()
    assert {(r.state, r.event_time) for r in sides} == {
        ("left", "`left_ts`"), ("right", "`right_ts`")}  # fmt: skip
    assert not inspect_checkpoint(spark, str(join), rows=False).operators[0].never_evicted


@pytest.mark.slow
def test_purge_of_expired_ttl_values(spark, tmp_path) -> None:
    """A value whose TTL expired is what Spark's next batch cleans up: purged first, the
    restarted query starts the user's count over all the same."""
    query = build(spark, "tws_ttl", "rocksdb", tmp_path / "query")
    path = str(query.checkpoint)
    attach(spark, path, "hy_ttl")
    spark.sql("UPDATE hy_ttl.tws_0.count SET ttlExpirationMs = 1000 WHERE user = 'alice'")
    counted = {t.table: t for t in hygiene(spark, path).tables}
    assert (counted["tws_0.count"].expired, counted["tws_0.count"].rows) == (1, 3)
    assert counted["tws_0.items"].expired == 0 and counted["tws_0.count"].evictable is None

    done = purge(spark, path, tables=["tws_0.count"])
    (statement,) = done.statements
    assert re.fullmatch(r"DELETE FROM `spark_savepoint_purge_\d+`\.`tws_0`\.`count` WHERE"
                        r" \(`ttlExpirationMs` <= \d{13}\)", statement), statement  # fmt: skip
    assert done.report.committed
    assert sorted(r.user for r in spark.table("hy_ttl.tws_0.count").collect()) == ["bob", "carol"]
    query.add_input([{"event_id": 10, "user": "alice", "item": "fig", "amount": 1,
                      "ts": "2024-01-01 10:10:00"}])  # fmt: skip
    assert query.run(spark) == [{"user": "alice", "count": 1}]
