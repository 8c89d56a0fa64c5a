"""UPDATE and MERGE INTO on state tables: Spark resolves and aligns them (its store assignment
policy casts the values), and runs them as a copy-on-write replace of the state, one new batch.
Each case restarts the real streaming query on the edited checkpoint: the MERGE and UPDATE cases
are written to have the same effect as the compatibility edits (tests/compat/edits.py: delete a
key, add another), so the restarted query must emit exactly those edits' rows."""

from __future__ import annotations

import pytest

from spark_savepoint import dry_run, last_edit, savepoint_errors
from tests.compat.edits import EDITS
from tests.support.checkpoint_files import last_batch, snapshot

pytestmark = pytest.mark.slow

CATALOG = "um"
WINDOW = (
    "named_struct('start', TIMESTAMP '2024-01-01 {}:00Z', 'end', TIMESTAMP '2024-01-01 {}:00Z')"
)
EARLY, LATE = WINDOW.format("10:00", "10:05"), WINDOW.format("10:05", "10:10")

MERGES = {
    "agg": "MERGE INTO {t} AS t USING (SELECT 'alice' AS user UNION ALL SELECT 'dave') AS c"
    " ON t.user = c.user WHEN MATCHED THEN DELETE"
    " WHEN NOT MATCHED THEN INSERT (user, cnt, total) VALUES (c.user, 10, 100)",
    "window_agg": f"MERGE INTO {{t}} AS t USING (SELECT {EARLY} AS w, 'alice' AS u"
    f" UNION ALL SELECT {LATE}, 'dave') AS c ON t.window = c.w AND t.user = c.u"
    " WHEN MATCHED THEN DELETE"
    " WHEN NOT MATCHED THEN INSERT (window, user, count) VALUES (c.w, c.u, 5)",
    "dedup": "MERGE INTO {t} AS t USING (SELECT 3L AS id UNION ALL SELECT 5L) AS c"
    " ON t.event_id = c.id WHEN MATCHED THEN DELETE"
    " WHEN NOT MATCHED THEN INSERT (event_id) VALUES (c.id)",
    "pandas_state": "MERGE INTO {t} AS t USING (SELECT 'alice' AS user UNION ALL SELECT 'dave')"
    " AS c ON t.user = c.user WHEN MATCHED THEN DELETE"
    " WHEN NOT MATCHED THEN INSERT (user, cnt, total) VALUES (c.user, 10, 100)",
    "tws": "MERGE INTO {t} AS t USING (SELECT 'alice' AS user UNION ALL SELECT 'dave') AS c"
    " ON t.user = c.user WHEN MATCHED THEN DELETE"
    " WHEN NOT MATCHED THEN INSERT (user, count) VALUES (c.user, 10)",
}
"""Delete one key, add another: the compatibility edit of each kind, as one MERGE."""

UPDATES = {
    "agg": "UPDATE {t} SET user = 'dave', cnt = 10, total = 100 WHERE user = 'alice'",
    "window_agg": f"UPDATE {{t}} SET window = {LATE}, user = 'dave', count = 5"
    f" WHERE user = 'alice' AND window = {EARLY}",
    "dedup": "UPDATE {t} SET event_id = 5 WHERE event_id = 3",
    "pandas_state": "UPDATE {t} SET user = 'dave', cnt = 10, total = 100 WHERE user = 'alice'",
    "tws": "UPDATE {t} SET user = 'dave', count = 10 WHERE user = 'alice'",
}
"""The same edits as one UPDATE each: a key changed moves its entry."""

CASES = [("agg", "hdfs"), ("agg", "rocksdb"), ("window_agg", "hdfs"), ("window_agg", "rocksdb"),
         ("dedup", "rocksdb"), ("pandas_state", "hdfs"), ("tws", "rocksdb")]  # fmt: skip
STATE = {"tws": "count"}
"""The state table each kind edits (``default`` unless named here)."""


@pytest.mark.parametrize("statements", [MERGES, UPDATES], ids=["merge", "update"])
@pytest.mark.parametrize(("kind", "provider"), CASES, ids=[f"{k}-{p}" for k, p in CASES])
def test_statement_is_one_batch_and_the_query_continues(
    spark, private_copy, statements, kind: str, provider: str
) -> None:
    query = private_copy(kind, provider, CATALOG)
    table = f"{CATALOG}.{query.uid}.{STATE.get(kind, 'default')}"
    statement = statements[kind].format(t=table)
    before = snapshot(query.checkpoint)
    planned = dry_run(spark, statement)
    assert snapshot(query.checkpoint) == before
    added_and_removed = (planned.added, planned.removed)
    with savepoint_errors():
        spark.sql(statement)
    report = last_edit(spark)
    assert report.committed and (report.written, report.removed) == added_and_removed == (1, 1)
    assert query.restart(spark) == EDITS[kind].restart


def test_merge_clauses_and_casts(spark, private_copy) -> None:
    """Every clause Spark has: matched update and delete, not matched insert, not matched by
    source delete; an INT value assigned to a BIGINT column is widened by the policy."""
    query = private_copy("agg", "rocksdb", CATALOG)
    table = f"{CATALOG}.agg_0.default"
    spark.sql(
        f"MERGE INTO {table} AS t USING (SELECT * FROM VALUES ('alice', 100), ('carol', 0),"
        " ('dave', 10) AS v(user, n)) AS c ON t.user = c.user"
        " WHEN MATCHED AND c.n = 0 THEN DELETE"
        " WHEN MATCHED THEN UPDATE SET cnt = c.n, total = c.n * 10"
        " WHEN NOT MATCHED THEN INSERT (user, cnt, total) VALUES (c.user, c.n, c.n * 10)"
        " WHEN NOT MATCHED BY SOURCE THEN DELETE"
    )
    got = sorted(tuple(r) for r in spark.sql(f"SELECT user, cnt, total FROM {table}").collect())
    assert got == [("alice", 100, 1000), ("dave", 10, 100)]
    assert query.restart(spark) == [
        {"user": "alice", "cnt": 102, "total": 1008},
        {"user": "dave", "cnt": 11, "total": 108},
    ]


ALICE, DAVE = {"user": "alice", "cnt": 4, "total": 25}, {"user": "dave", "cnt": 1, "total": 8}
"""The restart wave's output on the unedited state."""
PARTITION_EDITS = {
    "merge_insert_star": (
        ["MERGE INTO {t} AS t USING (SELECT 'dave' AS user, 10L AS cnt, 100L AS total) AS s"
         " ON t.user = s.user WHEN NOT MATCHED THEN INSERT *"],
        [ALICE, {"user": "dave", "cnt": 11, "total": 108}],
    ),
    "merge_update_star": (
        ["MERGE INTO {t} AS t USING (SELECT 'alice' AS user, 100L AS cnt, 1000L AS total) AS s"
         " ON t.user = s.user WHEN MATCHED AND t.partition_id = pmod(hash(s.user), 4)"
         " THEN UPDATE SET *"],
        [{"user": "alice", "cnt": 102, "total": 1008}, DAVE],
    ),
    "undo_with_insert_select_star_as_of": (
        ["UPDATE {t} SET cnt = 100, total = 1000 WHERE user = 'alice'",
         "INSERT INTO {t} SELECT * FROM {t} VERSION AS OF {n}"],
        [ALICE, DAVE],
    ),
    "delete_where_partition_id": (
        ["DELETE FROM {t} WHERE partition_id = pmod(hash('alice'), 4)"],
        [{"user": "alice", "cnt": 2, "total": 8}, DAVE],  # alice starts over
    ),
    "insert_names_partition_id": (
        ["INSERT INTO {t} (user, cnt, total, partition_id) VALUES ('dave', 10, 100, 99)"],
        [ALICE, {"user": "dave", "cnt": 11, "total": 108}],  # 99 is ignored: dave is placed
    ),
}  # fmt: skip
"""Statements that expand ``*`` without the metadata column ``partition_id`` or name it; the
restarted ``agg`` query's output on the edited state."""


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
@pytest.mark.parametrize("edit", list(PARTITION_EDITS))
def test_star_leaves_out_partition_id_and_conditions_name_it(
    spark, private_copy, edit: str, provider: str
) -> None:
    query = private_copy("agg", provider, CATALOG)
    table, n = f"{CATALOG}.agg_0.default", last_batch(query.checkpoint)
    statements, restarted = PARTITION_EDITS[edit]
    for statement in statements:
        spark.sql(statement.format(t=table, n=n))
    assert last_batch(query.checkpoint) == n + len(statements)
    placed = spark.sql(f"SELECT user, partition_id, pmod(hash(user), 4) AS p FROM {table}")
    assert all(r.partition_id == r.p for r in placed.collect())
    if edit.startswith("undo"):
        as_of = spark.sql(f"SELECT * FROM {table} VERSION AS OF {n}").collect()
        assert sorted(spark.table(table).collect()) == sorted(as_of)
    assert query.restart(spark) == restarted
