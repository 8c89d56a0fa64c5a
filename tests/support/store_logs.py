"""Take, restore and edit checkpoints in a fresh driver whose ``StateStoreProvider`` logger is at
INFO, then restart the real streaming query, marking each phase on stderr.

    python -m tests.support.store_logs <query root> [<query root> ...]

Each root holds an ``agg`` query's ``checkpoint/`` (its provider named by the folder,
``agg-hdfs`` or ``agg-rocksdb``). Phases, each opened by a line ``@@<phase>`` on stderr:

- ``canary``: Spark's own ``StateStoreProvider.coordinatorRef`` in a driver that has no
  ``StateStoreCoordinator`` yet (no query ever ran): Spark logs "StateStoreCoordinator endpoint
  not available", which shows that the logger reaches stderr;
- ``ours``: per root, a savepoint taken and restored onto 3 partitions (``<root>-restored``),
  then ``INSERT ('dave', 10, 100)`` into the restored checkpoint;
- ``query``: the real query restarted on each restored, edited checkpoint.

Prints ``{root: rows the restarted query emitted}`` as JSON on stdout. Run by
tests/system/test_store_logs.py.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from spark_savepoint import attach, restore_savepoint, session, take_savepoint  # noqa: E402
from tests.support.streaming_queries import StreamingQuery  # noqa: E402

LOGGER = "org.apache.spark.sql.execution.streaming.state.StateStoreProvider"


def phase(name: str) -> None:
    print(f"@@{name}", file=sys.stderr, flush=True)


def main(roots: list[str]) -> None:
    spark = session(master="local[2]", **{"spark.ui.enabled": "false",
                                          "spark.ui.showConsoleProgress": "false"})  # fmt: skip
    spark.sparkContext.setLogLevel("ERROR")
    jvm = spark._jvm
    assert jvm is not None
    jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(
        LOGGER, jvm.org.apache.logging.log4j.Level.INFO
    )
    phase("canary")
    provider = jvm.java.lang.Class.forName(LOGGER + "$").getField("MODULE$").get(None)
    provider.coordinatorRef()
    phase("ours")
    queries = {}
    for root in map(Path, roots):
        restored = Path(f"{root}-restored")
        take_savepoint(spark, str(root / "checkpoint"), str(root / "savepoint"))
        restore_savepoint(spark, str(root / "savepoint"), str(restored / "checkpoint"),
                          partitions=3)  # fmt: skip
        attach(spark, str(restored / "checkpoint"), "logs")
        spark.conf.set("spark.savepoint.write.force", "true")
        spark.sql("INSERT INTO logs.agg_0.default VALUES ('dave', 10, 100)")
        queries[str(root)] = StreamingQuery("agg", root.name.split("-")[-1], restored)
    phase("query")
    print(json.dumps({root: query.restart(spark) for root, query in queries.items()}))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
