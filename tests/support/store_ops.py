"""The steps of the remote-storage tests, run in this test session's Spark driver or in a driver
of its own (``tests.support.store_driver``, for S3, whose jars a running session cannot take),
behind one interface, so that one scenario runs on every store:

    store = InProcess(spark)            # or Driver(start_program("store_driver", conf, ...))
    store("attach", path="hdfs://127.0.0.1:9000/ckpt", catalog="h")
    store("sql", text="SELECT user, cnt FROM h.agg_0.default ORDER BY user")  # [["alice", 2]]

Every step returns plain JSON values (rows as lists), whichever driver ran it; a failed step
raises ``StepFailed`` whose message holds the driver's error (with its ``SAVEPOINT_*`` class).
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from spark_savepoint import (
    attach,
    list_savepoints,
    relocate,
    restore_savepoint,
    take_savepoint,
    verify,
)
from spark_savepoint.sql_ext.inspection import inspect_checkpoint
from tests.support import remote_fs
from tests.support.damage import damage_of
from tests.support.streaming_queries import StreamingQuery

FORCE = "spark.savepoint.write.force"
CONCURRENT_WRITE = "SAVEPOINT_CONCURRENT_WRITE"
REPLY = "@@reply "
"""Prefix of the driver's reply lines (anything else on its stdout is not a reply)."""


class StepFailed(RuntimeError):
    """A step failed in the driver that ran it; the message is the driver's error."""


def sql(spark: SparkSession, text: str) -> list[list[Any]]:
    """The rows of ``text``, each a list of column values."""
    return [list(row) for row in spark.sql(text).collect()]


def attach_step(spark: SparkSession, path: str, catalog: str, writable: bool = False) -> None:
    attach(spark, path, catalog, writable=writable)


def take(spark: SparkSession, checkpoint: str, target: str) -> dict[str, Any]:
    """The manifest of a savepoint of ``checkpoint`` taken into ``target`` (rows counted, also
    those of HDFS-backed files copied as they are)."""
    return take_savepoint(spark, checkpoint, target, count_rows=True)


def restore(spark: SparkSession, savepoint: str, target: str, **options: Any) -> str:
    return restore_savepoint(spark, savepoint, target, **options)


def listed(spark: SparkSession, folder: str) -> list[list[Any]]:
    """``[path, batch_id]`` of every savepoint in ``folder``."""
    return [[info.path, info.batch_id] for info in list_savepoints(spark, folder)]


def inspect(spark: SparkSession, checkpoint: str) -> dict[str, Any]:
    """``spark-savepoint inspect``'s report of ``checkpoint`` as plain values."""
    return inspect_checkpoint(spark, checkpoint).as_dict()


def verified(spark: SparkSession, checkpoint: str) -> list[list[Any]]:
    """The doctor's findings of ``checkpoint``: ``[class, severity, file]`` each."""
    return [[f.check, f.severity, f.file] for f in damage_of(verify(spark, checkpoint).findings)]


def relocated(spark: SparkSession, source: str, target: str, move: bool = False) -> str:
    """``spark-savepoint relocate``'s one line of moving (or copying) ``source`` to ``target``."""
    return relocate(spark, source, target, move=move)


def run(spark: SparkSession, kind: str, provider: str, root: str, location: str) -> list[dict]:
    """Run the streaming query of ``kind`` over the local input under ``root`` with its
    checkpoint at ``location`` (AvailableNow, until it stops); the rows it emitted."""
    return StreamingQuery(kind, provider, Path(root), location=location).run(spark)


def executors(spark: SparkSession, wanted: int = 2, timeout: float = 90) -> int:
    """The executors registered with the driver, once ``wanted`` have (or ``timeout`` passed)."""
    deadline = time.monotonic() + timeout
    while True:
        count = spark.sparkContext._jsc.sc().getExecutorIds().size()  # type: ignore[union-attr]
        if count >= wanted or time.monotonic() > deadline:
            return count
        time.sleep(0.5)


def race(spark: SparkSession, checkpoint: str, rounds: int) -> dict[str, str]:
    """Two writers (threads, each through a catalog of its own) upsert a key each into the
    ``agg_0.default`` state of ``checkpoint`` at the same moment, ``rounds`` times: writer
    ``a``/``b`` in round ``r`` writes ``(<a|b><r>, 10 + r, 100 + r)``. Returns each key's
    outcome: ``"ok"``, ``SAVEPOINT_CONCURRENT_WRITE``, or the message of any other error.
    Edits are forced (the test knows no query runs)."""
    for catalog in ("race_a", "race_b"):
        attach(spark, checkpoint, catalog)
    outcomes: dict[str, str] = {}
    spark.conf.set(FORCE, "true")
    try:
        for round_ in range(rounds):
            barrier = threading.Barrier(2)
            writers = [(barrier, f"race_{w}", f"{w}{round_}", round_) for w in ("a", "b")]
            threads = [
                threading.Thread(target=_upsert, args=(spark, *writer, outcomes))
                for writer in writers
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        spark.conf.unset(FORCE)
    return outcomes


def _upsert(spark: SparkSession, barrier: threading.Barrier, catalog: str, user: str,
            round_: int, outcomes: dict[str, str]) -> None:  # fmt: skip
    barrier.wait()
    try:
        spark.sql(f"INSERT INTO {catalog}.agg_0.default VALUES ('{user}', {10 + round_}L,"
                  f" {100 + round_}L)")  # fmt: skip
        outcomes[user] = "ok"
    except Exception as error:
        found = re.search(r"SAVEPOINT_[A-Z_]+", str(error))
        expected = found is not None and found.group(0) == CONCURRENT_WRITE
        outcomes[user] = CONCURRENT_WRITE if expected else str(error)[:1500]


STEPS: dict[str, Callable[..., Any]] = {
    "sql": sql,
    "attach": attach_step,
    "take": take,
    "restore": restore,
    "list": listed,
    "run": run,
    "inspect": inspect,
    "verify": verified,
    "relocate": relocated,
    "race": race,
    "executors": executors,
    "upload": remote_fs.upload,
    "files": remote_fs.files,
    "delete": remote_fs.delete,
    "mkdirs": remote_fs.mkdirs,
    "last_batch": remote_fs.last_batch,
    "read_text": remote_fs.read_text,
    "write_new": remote_fs.write_new,
    "race_write_new": remote_fs.race_write_new,
    "conditional_create": remote_fs.conditional_create,
}
"""Step name -> function of the session and the step's keyword arguments."""


def execute(spark: SparkSession, step: str, **args: Any) -> Any:
    """Run ``step``; its result as plain JSON values."""
    return json.loads(json.dumps(STEPS[step](spark, **args), default=str))


class InProcess:
    """Runs steps in this process's session."""

    def __init__(self, spark: SparkSession):
        self.spark = spark

    def __call__(self, step: str, **args: Any) -> Any:
        try:
            return execute(self.spark, step, **args)
        except Exception as error:
            raise StepFailed(f"{type(error).__name__}: {error}") from error


class Driver:
    """Runs steps in a started ``store_driver`` process, one JSON line each way."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        if self._line() != "ready":
            raise StepFailed(f"the store driver did not start (exit {process.poll()})")

    def _line(self) -> str:
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise StepFailed(f"the store driver exited ({self.process.poll()})")
            if line.startswith(REPLY) or line.strip() == "ready":
                return line.strip()

    def __call__(self, step: str, **args: Any) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"step": step, **args}) + "\n")
        self.process.stdin.flush()
        reply = json.loads(self._line()[len(REPLY) :])
        if "error" in reply:
            raise StepFailed(reply["error"])
        return reply["result"]

    def stop(self, timeout: float = 60) -> None:
        """Close its stdin (it stops its session and exits), then kill it after ``timeout``."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
