"""A statement that changes no entry commits no batch; every edit says what it changed. (An
INSERT OVERWRITE writes the state whole and always commits: tests/integration/
test_overwrite_images.py.)"""

from __future__ import annotations

import pytest

from spark_savepoint import last_edit
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.streaming_queries import StreamingQuery

TABLE = "noop.agg_0.default"
NO_CHANGE = {
    "delete-matching-nothing": f"DELETE FROM {TABLE} WHERE user = 'nobody'",
    "insert-of-no-rows": f"INSERT INTO {TABLE} SELECT * FROM {TABLE} WHERE false",
    "insert-of-the-same-values": f"INSERT INTO {TABLE} SELECT * FROM {TABLE}",
}


@pytest.fixture()
def agg(private_copy):
    def make(provider: str) -> StreamingQuery:
        return private_copy("agg", provider, "noop")

    return make


CASES = [("rocksdb", name) for name in NO_CHANGE] + [("hdfs", "delete-matching-nothing")]


@pytest.mark.parametrize(("provider", "case"), CASES, ids=[f"{p}-{c}" for p, c in CASES])
def test_statement_that_changes_nothing_commits_no_batch(
    spark, agg, provider: str, case: str
) -> None:
    statement = NO_CHANGE[case]
    query = agg(provider)
    before = snapshot(query.checkpoint)
    spark.sql(statement)
    assert snapshot(query.checkpoint) == before
    report = last_edit(spark)
    assert report is not None and not report.committed
    assert (report.table, report.written, report.removed) == ("agg_0.default", 0, 0)
    assert report.summary.startswith("savepoint: agg_0.default: no entry changed, no batch")


@pytest.mark.slow
def test_delete_without_where_empties_the_state_and_says_how_much(spark, agg) -> None:
    query = agg("rocksdb")
    n = last_batch(query.checkpoint)
    entries = spark.table(TABLE).count()
    spark.sql(f"DELETE FROM {TABLE}")
    report = last_edit(spark)
    assert report is not None
    assert (report.batch_id, report.written, report.removed) == (n + 1, 0, entries)
    assert report.summary == (
        f"savepoint: agg_0.default: 0 entries written, {entries} removed:"
        f" committed as batch {n + 1} of '{query.checkpoint}'"
    )
    assert spark.table(TABLE).count() == 0
    assert query.restart(spark) == [
        {"user": "alice", "cnt": 2, "total": 8},
        {"user": "dave", "cnt": 1, "total": 8},
    ]


def test_report_counts_only_entries_that_changed(spark, agg) -> None:
    query = agg("hdfs")
    spark.sql(f"INSERT INTO {TABLE} VALUES ('alice', 2, 17), ('bob', 7, 70), ('zed', 1, 1)")
    report = last_edit(spark)  # alice is unchanged
    assert report is not None
    assert (report.batch_id, report.written, report.removed) == (last_batch(query.checkpoint), 2, 0)


def test_each_session_sees_its_own_last_edit_also_in_sql(spark, agg) -> None:
    query = agg("hdfs")
    n = last_batch(query.checkpoint)
    other = spark.newSession()  # another notebook, Thrift or Connect session of this driver
    for key, value in spark.conf.getAll.items():
        if key.startswith("spark.sql.catalog.noop"):
            other.conf.set(key, value)
    other.sql(f"DELETE FROM {TABLE} WHERE user = 'nobody'")  # commits nothing
    spark.sql(f"DELETE FROM {TABLE} WHERE user = 'alice'")
    mine, theirs = last_edit(spark), last_edit(other)
    assert mine is not None and (mine.batch_id, mine.removed) == (n + 1, 1)
    assert theirs is not None and (theirs.batch_id, theirs.removed) == (None, 0)
    row = spark.sql("CALL noop.system.last_edit()").collect()
    assert [r.asDict() for r in row] == [
        {"checkpoint": str(query.checkpoint), "table": "agg_0.default", "batch_id": n + 1,
         "written": 0, "removed": 1, "summary": mine.summary, "warning": None}
    ]  # fmt: skip
    assert other.sql("CALL noop.system.last_dry_run()").collect() == []  # none in this session
