"""A ``pyspark-client`` program (run in the client's own virtualenv, see
:mod:`tests.support.connect_venv`): reads and edits a checkpoint through a
``spark-savepoint connect`` server with the Python API, and prints what it saw as one JSON object.

    python connect_client.py '{"url": "sc://127.0.0.1:15002", "agg": ..., "dedup": ...,
                               "savepoints": ..., "missing": ..., "empty": ...}'

``agg`` is the agg/hdfs checkpoint the server serves as catalog ``savepoint``; ``dedup`` a
dedup checkpoint the program attaches itself; ``savepoints`` a folder for a savepoint it takes.
It imports nothing from the tests: only pyspark (the Connect client) and spark_savepoint.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import pyspark
from pyspark.sql import DataFrame, SparkSession

TABLE = "savepoint.agg_0.default"


def rows(frame: DataFrame) -> list[list[Any]]:
    return [list(row) for row in frame.collect()]


def refusal(action: Callable[[], Any]) -> dict[str, str]:
    """What ``action`` raised: its type, error class and text."""
    try:
        action()
    except Exception as error:
        return {"type": type(error).__name__, "class": getattr(error, "error_class", ""),
                "text": str(error)}  # fmt: skip
    raise AssertionError("expected an error")


def reads_and_writes(spark: SparkSession) -> dict[str, Any]:
    """The catalog the server attached: read, edit with SQL and the DataFrame writer, travel."""
    out: dict[str, Any] = {}
    by_user = f"SELECT user, cnt, total FROM {TABLE} ORDER BY user"
    out["before"] = rows(spark.sql(by_user))
    metadata = spark.table("savepoint.metadata").where("operator_id IS NOT NULL")
    out["metadata"] = rows(metadata.select("uid", "state", "batch_id"))
    spark.sql(f"INSERT INTO {TABLE} VALUES ('alice', 100, 1000)")  # an upsert
    spark.sql(f"DELETE FROM {TABLE} WHERE user = 'bob'")
    frame = spark.createDataFrame([("dave", 10, 100)], "user string, cnt bigint, total bigint")
    frame.writeTo(TABLE).append()
    out["after"] = rows(spark.sql(by_user))
    travel = f"SELECT user, cnt, total FROM {TABLE} VERSION AS OF 1 ORDER BY user"
    out["version_1"] = rows(spark.sql(travel))
    batches = spark.sql("SELECT batch_id FROM savepoint.query.batches ORDER BY batch_id")
    out["batches"] = [row[0] for row in batches.collect()]
    from spark_savepoint import diff

    out["diff"] = sorted([r.change_type, r.user] for r in diff(spark, TABLE, 1).collect())
    return out


def python_api(spark: SparkSession, args: dict[str, str]) -> dict[str, Any]:
    """attach, session, savepoints and the table functions, from the client."""
    import spark_savepoint as sp

    out: dict[str, Any] = {}
    sp.attach(spark, args["dedup"], "dd")
    out["dedup"] = sorted(row[0] for row in spark.table("dd.dedup_0.default").collect())
    out["session_is_active"] = sp.session() is spark
    path = {"path": args["agg"]}
    functions = "SELECT uid, state FROM savepoint_metadata(:path) WHERE operator_id IS NOT NULL"
    out["savepoint_metadata"] = rows(spark.sql(functions, args=path))
    state = "SELECT user, cnt FROM savepoint_state(:path, 'agg_0', 'default', 1) ORDER BY user"
    out["savepoint_state"] = rows(spark.sql(state, args=path))
    manifest = sp.take_savepoint(spark, args["agg"], f"{args['savepoints']}/sp1", count_rows=True)
    out["taken"] = [manifest["batch_id"], manifest["operators"][0]["rows"]]
    out["listed"] = [[i.batch_id, i.rows] for i in sp.list_savepoints(spark, args["savepoints"])]
    listed = spark.sql("SELECT batch_id FROM savepoint_list(:folder)",
                       args={"folder": args["savepoints"]})  # fmt: skip
    out["savepoint_list"] = rows(listed)
    out["bootstrap"] = bootstrap(spark)
    return out


def edit_reports(spark: SparkSession, args: dict[str, str]) -> dict[str, Any]:
    """The verbs that are procedures of the session: the last edit, a dry run, a transaction
    rolled back, and an empty savepoint created by the server."""
    import spark_savepoint as sp

    out: dict[str, Any] = {}
    report = sp.last_edit(spark)
    out["last_edit"] = None if report is None else [report.batch_id, report.written]
    delete = f"DELETE FROM {TABLE} WHERE user = 'carol'"
    planned = sp.dry_run(spark, delete)
    out["dry_run"] = [planned.batch_id, planned.removed, planned.samples]
    with sp.edit(spark, dry_run=True) as tx:
        tx.sql(delete)
        out["transaction_plan"] = [[p.table, p.removed] for p in tx.plan()]
    batches = spark.sql("SELECT batch_id FROM savepoint.query.batches ORDER BY batch_id")
    out["batches_after_plans"] = [row[0] for row in batches.collect()]
    out["created"] = sp.create_savepoint(spark, args["empty"], like=args["agg"])
    inspected = sp.inspect_checkpoint(spark, args["agg"], rows=False, catalog="insp")
    out["inspected"] = [inspected.batch_id, [op.uid for op in inspected.operators]]
    undone = sp.undo(spark, args["agg"], dry_run=True)
    out["undo_planned"] = [undone.batch_id, len(undone.statements), undone.summary]
    counted = sp.hygiene(spark, args["agg"]).tables
    out["hygiene"] = [[t.table, t.rows, t.evictable, t.never_evicted] for t in counted]
    edits = "SELECT batch_id, statements, written, removed FROM savepoint.query.edits"
    out["edits"] = rows(spark.sql(edits))
    return out


def count_and_sum(key: tuple, frames: Any, state: Any) -> Any:
    """The applyInPandasWithState function of the tests' pandas_state query."""
    import pandas as pd

    cnt, total = state.get if state.exists else (0, 0)
    for frame in frames:
        cnt, total = cnt + len(frame), total + int(frame["amount"].sum())
    state.update((cnt, total))
    yield pd.DataFrame({"user": [key[0]], "cnt": [cnt], "total": [total]})


def bootstrap(spark: SparkSession) -> list[list[Any]]:
    """A bootstrap table function registered from the client runs in the server's workers."""
    import spark_savepoint as sp

    function = sp.group_state_bootstrap(
        count_and_sum, key=["user"], state_schema="cnt long, total long", order_by=["ts"]
    )
    spark.udtf.register("bootstrap_counts", function)
    history = spark.createDataFrame([("a", 1, 1), ("a", 2, 2), ("b", 5, 3)],
                                    "user string, amount long, ts long")  # fmt: skip
    history.createOrReplaceTempView("history")
    return rows(spark.sql("SELECT * FROM bootstrap_counts(TABLE(history)) ORDER BY user"))


def errors(spark: SparkSession, args: dict[str, str]) -> dict[str, Any]:
    """Refusals from the server and from the client, as the user sees them."""
    import spark_savepoint as sp

    def no_such_state() -> None:
        spark.sql(f"SELECT * FROM {TABLE.replace('default', 'nope')}").collect()

    def typed() -> None:
        with sp.savepoint_errors():
            no_such_state()

    raw = refusal(no_such_state)
    return {
        "raw_condition": raw["type"] + " " + raw["text"].splitlines()[0],
        "typed": refusal(typed),
        "attach_missing": refusal(lambda: sp.attach(spark, args["missing"], "bad")),
        "upgrade_check": refusal(lambda: sp.upgrade_check(spark, args["agg"], spark.range(1))),
    }


def main(args: dict[str, str]) -> dict[str, Any]:
    spark = SparkSession.builder.remote(args["url"]).getOrCreate()
    spark.conf.set("spark.savepoint.write.force", "true")  # a fresh copy looks like a live query's
    out = {"pyspark": pyspark.__version__, "session": type(spark).__module__}
    out.update(reads_and_writes(spark))
    out.update(python_api(spark, args))
    out.update(edit_reports(spark, args))
    out["errors"] = errors(spark, args)
    out["jvm_modules"] = sorted(name for name in sys.modules if name.startswith("py4j"))
    spark.stop()
    return out


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))), flush=True)
