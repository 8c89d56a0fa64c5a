"""The ``agg`` query running with a processing-time trigger, in its own Spark driver.

    python -m tests.support.live_query <root>

Builds the ``agg`` query in ``<root>`` (``streaming_queries.build``), then starts it again
with ``processingTime='1 second'`` while a feeder thread adds one input file (a new user) about
every half second, so that it commits a batch at every trigger. Prints ``running`` once three
batches of this run have input, then waits for a line on stdin, stops feeding, lets the query
process what is left and stops it between two triggers, prints ``stopped`` and exits.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from spark_savepoint import session  # noqa: E402
from tests.support.streaming_queries import build  # noqa: E402

TRIGGER = "1 second"


def feed(query, stop: threading.Event) -> None:
    """One file per half second: user ``live<i>`` buys one apple at 10:10."""
    i = 0
    while not stop.wait(0.5):
        query.add_input(
            [
                {
                    "event_id": 1000 + i,
                    "user": f"live{i}",
                    "item": "apple",
                    "amount": 1,
                    "ts": "2024-01-01 10:10:00",
                }
            ]
        )
        i += 1


def main(root: Path) -> None:
    spark = session(
        master="local[2]", **{"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"}
    )
    spark.sparkContext.setLogLevel("ERROR")
    query = build(spark, "agg", "hdfs", root)
    stop = threading.Event()
    feeder = threading.Thread(target=feed, args=(query, stop), daemon=True)
    feeder.start()
    running = query.start(spark, lambda batch, _: batch.collect(), processingTime=TRIGGER)
    while sum(p["numInputRows"] > 0 for p in running.recentProgress) < 3:
        running.awaitTermination(0.2)
    print("running", flush=True)
    sys.stdin.readline()
    stop.set()
    feeder.join()
    running.processAllAvailable()  # idle between triggers: stop() interrupts no batch
    running.stop()
    print("stopped", flush=True)
    spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
