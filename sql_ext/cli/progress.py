"""Progress of long CLI operations (savepoint take and restore, upgrade apply, ``sql --atomic``,
inspect) on stderr: the Spark jobs they start, with their stages and tasks done.

On a terminal, one line redrawn in place::

    take [###########.........] job 2, stages 3/4, tasks 37/50, 4.2 s

Elsewhere (a pipe, a CI log), a plain line whenever a job's numbers change::

    take: job 2: 37/50 tasks, 3/4 stages (4.2 s)

Operations that end within ``quiet_for`` seconds (1 s) print nothing. Example::

    with job_progress(spark, "take"):
        take_savepoint(spark, "/ckpt", "/savepoints/sp1")

>>> Totals(jobs=2, stages_done=3, stages=4, tasks_done=37, tasks=50).bar(10)
'[#######...]'
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class Totals:
    """Stages and tasks of one job, or of all jobs of an operation so far."""

    jobs: int
    stages_done: int
    stages: int
    tasks_done: int
    tasks: int

    def bar(self, width: int) -> str:
        """The tasks done as a bar of ``width`` characters."""
        filled = width * self.tasks_done // self.tasks if self.tasks else 0
        return "[" + "#" * filled + "." * (width - filled) + "]"

    def __add__(self, other: Totals) -> Totals:
        return Totals(
            self.jobs + other.jobs,
            self.stages_done + other.stages_done,
            self.stages + other.stages,
            self.tasks_done + other.tasks_done,
            self.tasks + other.tasks,
        )


NONE = Totals(0, 0, 0, 0, 0)


def job_totals(tracker: Any, job_id: int) -> Totals | None:
    """A job's stages and tasks from Spark's status tracker (None once it is forgotten). A job
    that succeeded counts all its stages done (a stage it skipped never runs its tasks)."""
    job = tracker.getJobInfo(job_id)
    if job is None:
        return None
    succeeded = str(job.status) == "SUCCEEDED"
    totals = Totals(1, 0, 0, 0, 0)
    for stage_id in job.stageIds:
        stage = tracker.getStageInfo(stage_id)
        if stage is None:
            continue
        done = stage.numTasks if succeeded else stage.numCompletedTasks
        finished = int(succeeded or (stage.numTasks > 0 and done >= stage.numTasks))
        totals += Totals(0, finished, 1, done, stage.numTasks)
    return totals


class _Progress:
    """Polls the jobs started since it was made, in the caller's job group, and reports them."""

    def __init__(self, spark: SparkSession, label: str, out: TextIO, quiet_for: float) -> None:
        context = spark.sparkContext
        self.tracker = context.statusTracker()
        self.group = context.getLocalProperty("spark.jobGroup.id")
        self.known = set(self.tracker.getJobIdsForGroup(self.group) or [])
        self.label, self.out, self.quiet_for = label, out, quiet_for
        self.tty = bool(getattr(out, "isatty", lambda: False)())
        self.started = time.monotonic()
        self.order: list[int] = []
        self.jobs: dict[int, Totals] = {}
        self.printed: dict[int, Totals] = {}
        self.width = 0

    def poll(self) -> None:
        for job_id in sorted(set(self.tracker.getJobIdsForGroup(self.group) or []) - self.known):
            totals = job_totals(self.tracker, job_id)
            if totals is not None:
                if job_id not in self.order:
                    self.order.append(job_id)
                self.jobs[job_id] = totals

    def report(self, final: bool = False) -> None:
        """Print what changed, once the operation has run ``quiet_for`` seconds."""
        elapsed = time.monotonic() - self.started
        if elapsed < self.quiet_for or not self.jobs:
            return
        if self.tty:
            self._redraw(elapsed, final)
            return
        for number, job_id in enumerate(self.order, 1):
            totals = self.jobs[job_id]
            if self.printed.get(job_id) != totals:
                self.printed[job_id] = totals
                print(
                    f"{self.label}: job {number}: {totals.tasks_done}/{totals.tasks} tasks, "
                    f"{totals.stages_done}/{totals.stages} stages ({elapsed:.1f} s)",
                    file=self.out,
                    flush=True,
                )

    def _redraw(self, elapsed: float, final: bool) -> None:
        totals = sum(self.jobs.values(), NONE)
        line = (
            f"{self.label} {totals.bar(20)} job {len(self.order)}, "
            f"stages {totals.stages_done}/{totals.stages}, "
            f"tasks {totals.tasks_done}/{totals.tasks}, {elapsed:.1f} s"
        )[: shutil.get_terminal_size().columns - 1]
        self.out.write("\r" + line.ljust(self.width) + ("\n" if final else ""))
        self.out.flush()
        self.width = len(line)


@contextmanager
def job_progress(
    spark: SparkSession,
    label: str,
    out: TextIO | None = None,
    every: float = 0.5,
    quiet_for: float = 1.0,
) -> Iterator[None]:
    """While the body runs, show the progress of the Spark jobs it starts on ``out`` (stderr):
    a bar on a terminal, plain lines elsewhere; nothing when it ends within ``quiet_for`` s."""
    progress = _Progress(spark, label, out or sys.stderr, quiet_for)
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every):
            try:
                progress.poll()
                progress.report()
            except Exception:  # the context may be stopping: progress is best effort
                return

    thread = threading.Thread(target=run, name="spark-savepoint-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        try:
            progress.poll()
            progress.report(final=True)
        except Exception:
            pass
