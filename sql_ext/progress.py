"""Progress of long operations (savepoint take and restore) on the terminal: the Spark jobs they
run, as ``stage: done/total tasks`` lines on stderr, printed when the numbers change.

Example::

    with job_progress(spark, "take"):
        take_savepoint(spark, "/ckpt", "/savepoints/sp1")
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@contextmanager
def job_progress(
    spark: SparkSession, label: str, out: TextIO | None = None, every: float = 0.5
) -> Iterator[None]:
    """While the body runs, print the progress of the Spark jobs it starts to ``out`` (stderr)."""
    stream = out or sys.stderr
    stop = threading.Event()
    tracker = spark.sparkContext.statusTracker()
    known = set(tracker.getJobIdsForGroup(None) or [])
    last: dict[int, str] = {}
    order: list[int] = []

    def report() -> None:
        for job_id in sorted(set(tracker.getJobIdsForGroup(None) or []) - known):
            job = tracker.getJobInfo(job_id)
            if job is None:
                continue
            done = total = 0
            for stage_id in job.stageIds:
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    done += stage.numCompletedTasks
                    total += stage.numTasks
            if job_id not in order:
                order.append(job_id)
            line = f"{label}: job {order.index(job_id) + 1}: {done}/{total} tasks"
            if last.get(job_id) != line:
                last[job_id] = line
                print(line, file=stream, flush=True)

    def poll() -> None:
        while not stop.wait(every):
            try:
                report()
            except Exception:  # the context may be stopping: progress is best effort
                return

    thread = threading.Thread(target=poll, name="spark-savepoint-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        try:
            report()
        except Exception:
            pass
