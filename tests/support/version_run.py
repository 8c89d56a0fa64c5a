"""The tool on another Spark: run in the virtualenv of one of ``jar.SPARK_VERSIONS``
(:mod:`tests.support.runtime_venvs`), it builds the tests' ``agg`` checkpoint with that Spark,
reads it through the catalog (also as of an older batch), checks the unchanged query as an
upgrade, edits it with INSERT, DELETE, UPDATE and MERGE, takes a savepoint,
restores it onto 8 partitions and restarts the real query on the restored checkpoint, and
upgrades the checkpoint as it was before the edits to a changed query (a dropDuplicates in
front) and runs that, all with that same Spark; it also calls a procedure with SQL's CALL,
makes a bootstrap table function, reads every state of the golden checkpoints named in
``goldens`` (copies of ``tests/golden/<version>/<case>``, written by other Spark versions) or the
error class that refused it, and edits those named in ``edits`` with their kind's edit
(tests/compat/edits.py) and restarts their query. Then it prints what it saw as one JSON object
(last line)::

    python -m tests.support.version_run '{"root": "/tmp/x", "providers": ["hdfs", "rocksdb"],
                                           "goldens": ["3.5.9/join-hdfs"],
                                           "edits": ["3.5.9/dedup-rocksdb"]}'

It imports only pyspark, spark_savepoint and the tests' query builders (no pytest).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyspark
from pyspark.sql import SparkSession

import spark_savepoint as sp
from spark_savepoint.catalog import settings
from tests.compat.edits import EDITS as KIND_EDITS
from tests.compat.golden import Golden, as_compared
from tests.compat.restart import restart_case
from tests.support.damage import damage_of
from tests.support.streaming_queries import (
    StreamingQuery,
    build,
    query_for,
    restart_rows,
    session_confs,
)

TABLE = "v.agg_0.default"
BOB_AGAIN = {"event_id": 7, "user": "bob", "item": "pear", "amount": 5, "ts": "2024-01-01 10:09:00"}
EDITS = (
    f"INSERT INTO {TABLE} VALUES ('alice', 100, 1000)",
    f"DELETE FROM {TABLE} WHERE user = 'bob'",
    f"UPDATE {TABLE} SET total = total + 1 WHERE user = 'carol'",
    f"MERGE INTO {TABLE} t USING (SELECT 'dave' AS user, 10L AS cnt, 100L AS total) s"
    " ON t.user = s.user WHEN NOT MATCHED THEN INSERT *",
)


def rows(spark: SparkSession, sql: str) -> list[list[Any]]:
    return [list(row) for row in spark.sql(sql).collect()]


CHANGES_SETTING = settings.CHANGES_FROM_CHANGE_FILES


def change_feeds(spark: SparkSession) -> dict[str, Any]:
    """The change feed of every batch, as the session reads it by default (from the change files
    where that Spark has Spark's ``readChangeFeed``) and as diffs of full reads."""
    sql = (
        "SELECT batch_id, change_type, user, cnt, total"
        f" FROM savepoint_changes('{TABLE}', 0) ORDER BY batch_id, user"
    )
    plan = spark.sql(f"EXPLAIN {sql}").collect()[0][0]
    out: dict[str, Any] = {"from_change_files": "change files" in plan, "rows": rows(spark, sql)}
    spark.conf.set(CHANGES_SETTING, "false")
    try:
        out["diffed"] = rows(spark, sql)
    finally:
        spark.conf.unset(CHANGES_SETTING)
    return out


def one_provider(spark: SparkSession, root: Path, provider: str) -> dict[str, Any]:
    """Build, read, edit, take, restore onto 8 partitions, restart: what each step gave."""
    query = build(spark, "agg", provider, root / provider)
    shutil.copytree(query.checkpoint, root / provider / "pristine")  # for other clients' tests
    sp.attach(spark, str(query.checkpoint), "v")
    by_user = f"SELECT * FROM {TABLE} ORDER BY user"
    out: dict[str, Any] = {"before": rows(spark, by_user), "edits": []}
    same = query_for("agg")(spark, query.input_dir)
    report = sp.upgrade_check(spark, str(query.checkpoint), same, output_mode="update")
    out["upgrade"] = [report.verdict, [op.action for op in report.operators]]
    for statement in EDITS:
        spark.sql(statement)
        report = sp.last_edit(spark)
        out["edits"].append(None if report is None else report.batch_id)
    out["call"] = outcome(lambda: len(spark.sql("CALL v.system.last_edit()").collect()))
    out["after"] = rows(spark, by_user)
    out["lookup"] = rows(spark, f"SELECT * FROM {TABLE} WHERE user = 'carol'")  # a key lookup
    out["batches"] = rows(spark, "SELECT batch_id FROM v.query.batches ORDER BY batch_id")
    out["version_1"] = rows(spark, f"SELECT * FROM {TABLE} VERSION AS OF 1 ORDER BY user")
    out["changes"] = change_feeds(spark)
    out["doctor"] = doctor(spark, query.checkpoint, root / provider / "damaged")
    savepoint, restored = root / provider / "savepoint", root / provider / "restored"
    manifest = sp.take_savepoint(spark, str(query.checkpoint), str(savepoint))
    out["taken"] = manifest["batch_id"]
    sp.restore_savepoint(spark, str(savepoint), str(restored), partitions=8)
    sp.attach(spark, str(restored), "r")
    out["restored"] = rows(spark, "SELECT * FROM r.agg_0.default ORDER BY user")
    out["partitions"] = rows(spark, "SELECT DISTINCT partition_id FROM r.agg_0.default")
    again = StreamingQuery("agg", provider, query.root, location=str(restored))
    query.add_input([*restart_rows("agg"), BOB_AGAIN])
    out["restart"] = [[r["user"], r["cnt"], r["total"]] for r in again.run(spark)]
    # the query changed (a dropDuplicates in front), its state upgraded from before the edits
    upgraded = root / provider / "upgraded"
    new = query_for("dedup_agg")(spark, query.input_dir)
    out["upgrade_apply"] = sp.upgrade_apply(
        spark, str(root / provider / "pristine"), str(upgraded), new, "update"
    )
    changed = StreamingQuery("dedup_agg", provider, query.root, location=str(upgraded))
    out["upgraded_run"] = [[r["user"], r["cnt"], r["total"]] for r in changed.run(spark)]
    out["folded"] = folded(spark, root / provider)
    return out


def folded(spark: SparkSession, folder: Path) -> list[list[Any]]:
    """Two statements on one table in one transaction (on a copy of the pristine checkpoint):
    what the second saw of the first, and what the commit left."""
    shutil.copytree(folder / "pristine", folder / "folded")
    sp.attach(spark, str(folder / "folded"), "fo")
    table = "fo.agg_0.default"
    erin = f"SELECT * FROM {table} WHERE user = 'erin'"
    with sp.edit(spark) as tx:
        tx.sql(f"INSERT INTO {table} VALUES ('erin', 1, 1)")
        tx.sql(f"UPDATE {table} SET total = total + 1 WHERE user = 'erin'")
        staged = [list(row) for row in tx.collect(erin)]
    return [*staged, *rows(spark, erin)]


def doctor(spark: SparkSession, checkpoint: Path, damaged: Path) -> dict[str, Any]:
    """The doctor on the edited checkpoint; then on a copy without partition 0's files of the
    last version, repaired (rolled back a batch)."""
    classes = lambda folder: [  # noqa: E731
        f.check for f in damage_of(sp.verify(spark, str(folder)).findings)
    ]
    out: dict[str, Any] = {"healthy": classes(checkpoint)}
    shutil.copytree(checkpoint, damaged)
    for file in (damaged / "state" / "0" / "0").iterdir():
        if file.name.lstrip(".").startswith("6."):
            file.unlink()
    out["damaged"] = classes(damaged)
    out["repair"] = sp.repair(spark, str(damaged), force=True).summary
    out["repaired"] = classes(damaged)
    return out


def outcome(step: Callable[[], Any]) -> Any:
    """What ``step`` returns, or the ``SAVEPOINT_*`` class of the error it raises."""
    try:
        return step()
    except Exception as error:  # noqa: BLE001 - any error carrying a SAVEPOINT_* class
        found = sp.savepoint_error(error)
        if found is None:
            raise
        return found.error_class


def golden_states(spark: SparkSession, root: Path, name: str) -> Any:
    """Every state of the golden checkpoint ``<version>/<case>`` (a copy under ``root``) as
    compared rows by state name, or the error class that refused it."""
    version, case = name.split("/")
    golden = Golden(version, case)
    copy = golden.copy(root / "goldens" / version / case).checkpoint

    def read() -> dict[str, Any]:
        sp.attach(spark, str(copy), "g")
        tables = spark.sql(
            "SELECT state, table_name FROM g.metadata WHERE operator_id IS NOT NULL"
        ).collect()
        return {
            state: as_compared(spark.table(table).select("*", "partition_id").collect())
            for state, table in tables
        }

    return outcome(read)


def golden_edit(spark: SparkSession, root: Path, name: str) -> dict[str, Any]:
    """The golden checkpoint ``<version>/<case>`` (a copy under ``root``) edited with its kind's
    edit (tests/compat/edits.py) by this Spark, and restarted by it: what the restart emitted,
    or the error."""
    version, case = name.split("/")
    golden = Golden(version, case)
    query = golden.copy(root / "edited" / version / case)
    with session_confs(spark, {"spark.savepoint.write.force": "true"}):  # fresh copies
        sp.attach(spark, str(query.checkpoint), "e")
        for statement in KIND_EDITS[golden.kind].sql(f"e.{golden.uid}"):
            spark.sql(statement)
    return restart_case(spark, {"kind": golden.kind, "provider": golden.provider,
                                "root": str(query.root)})  # fmt: skip


def main(args: dict[str, Any]) -> dict[str, Any]:
    spark = sp.session(master="local[2]", **{"spark.sql.shuffle.partitions": "4",
                                            "spark.ui.enabled": "false"})  # fmt: skip
    spark.sparkContext.setLogLevel("ERROR")
    out: dict[str, Any] = {"pyspark": pyspark.__version__, "spark": spark.version}
    out["jar"] = Path(spark.conf.get("spark.driver.extraClassPath")).name
    for provider in args["providers"]:
        out[provider] = one_provider(spark, Path(args["root"]), provider)
    no_state = lambda key, frames, state: iter(())  # noqa: E731
    out["bootstrap"] = outcome(
        lambda: type(sp.group_state_bootstrap(no_state, ["user"], "n long")).__name__
    )
    out["goldens"] = {
        name: golden_states(spark, Path(args["root"]), name) for name in args.get("goldens", [])
    }
    out["edited"] = {
        name: golden_edit(spark, Path(args["root"]), name) for name in args.get("edits", [])
    }
    spark.stop()
    return out


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))), flush=True)
