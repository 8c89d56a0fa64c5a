"""A write killed at any point of its commit protocol leaves a checkpoint that the catalog
reads and the streaming query restarts from, with the whole edit or none of it.

Each case builds the ``agg`` query in its own folder and lets ``support/crash_write.py``, a Spark
driver of its own, upsert into its checkpoint (alice's counters set to 100/1000, so that a
leaked edit would show in the restarted query's output) until its JVM halts at one crash point
(``Runtime.halt``: as abrupt as ``kill -9``; no finally block, no shutdown hook runs). With N
the last committed batch and b = N+1, the points, in the order the write reaches them:

* ``claimed``: the writer's claim file for b exists; offsets/b does not;
* ``planned``: offsets/b (a copy of offsets/N) exists; no state file is written yet;
* ``state``: the first store partition has committed state version N+2, the others have not;
* ``state-committed``: every store partition has version N+2; commits/b is not written;
* ``committed``: commits/b is written: the edit is whole;
* ``rolled-back-state``: a write that failed in its tasks (a duplicate key) has removed the
  state files it created but not yet released its claim (offsets/b, the claim file).

Two cases run the upsert as an edit transaction (``edit``), whose commit goes through the same
points after its statements were staged. Two write the same state as an INSERT OVERWRITE, whose
tasks write full images into a staging folder; a last point is its own:

* ``images-committed``: commits/b is written, the images are still staged (format v1 moves them
  after the commit): nothing may read a half edit; ``recover`` or the next write completes it.

After the halt: (a) the catalog reads batch N without the edit, or batch b with all of it; (b)
the real query restarts with new input and continues from that state; (c) on a copy taken
right after the halt, a new write succeeds at once (the interrupted edit's writer is gone, so
the write first completes batch b without the edit) and the restarted query continues from it.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark.errors import StreamingQueryException

from spark_savepoint import (
    attach,
    edit,
    recover,
    restore_savepoint,
    savepoint_errors,
    take_savepoint,
)
from spark_savepoint.catalog.errors import TargetNotEmpty, UnfinishedCheckpoint
from tests.support import start_program
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.source_queries import run_file_count, write_json
from tests.support.streaming_queries import build, restart_rows

pytestmark = pytest.mark.slow

CATALOG = "crashed"
TABLE = f"{CATALOG}.agg_0.default"
KEYS = 2_000
"""New keys of the halted upsert."""
CASES = [
    ("hdfs", "claimed", "upsert"),
    ("hdfs", "state", "upsert"),
    ("hdfs", "committed", "upsert"),
    ("rocksdb", "planned", "upsert"),
    ("rocksdb", "state-committed", "upsert"),
    ("rocksdb", "rolled-back-state", "duplicate"),
    ("hdfs", "state-committed", "transaction"),
    ("rocksdb", "state", "transaction"),
    ("hdfs", "state", "overwrite"),
    ("rocksdb", "state-committed", "overwrite"),
]
IMAGE_PROVIDERS = ["hdfs", "rocksdb"]
"""Providers of the overwrite halted between its commit and the moves of its images."""
STATE_BEFORE = [("alice", 2, 17), ("bob", 2, 10), ("carol", 1, 3)]
"""The query's state after its two default batches (user, count, sum)."""
RESTARTED = [{"user": "alice", "cnt": 4, "total": 25}, {"user": "dave", "cnt": 1, "total": 8}]
"""The restart wave's output on the pre-edit state."""
RESTARTED_EDITED = [
    {"user": "alice", "cnt": 102, "total": 1008},
    {"user": "dave", "cnt": 1, "total": 8},
]
"""The restart wave's output on the edited state (alice 100/1000)."""
STATE_RESTARTED = [("alice", 4, 25), ("bob", 2, 10), ("carol", 1, 3), ("dave", 1, 8)]
DAVE = "INSERT INTO crashed.agg_0.default VALUES ('dave', 10, 100)"


def rows(spark) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(TABLE).collect() if not r["user"].startswith("k"))


def claims(checkpoint: Path, batch: int) -> list[Path]:
    return sorted((checkpoint / "_savepoint" / "edits").glob(f"{batch}.*.json"))


def staging_folders(checkpoint: Path) -> list[Path]:
    """The staging folders of edit transactions in ``checkpoint``."""
    return list(checkpoint.glob("_savepoint-tx-*"))


# ---- the halting writer ----


@dataclass
class Writer:
    """A started ``tests/support/crash_write.py``: its process and the file its stderr goes to."""

    process: subprocess.Popen
    log: Path

    @classmethod
    def start(cls, workdir: Path) -> Writer:
        log = workdir / f"writer-{len(list(workdir.glob('writer-*.log')))}.log"
        with log.open("w") as stderr:
            process = start_program("crash_write", str(KEYS), cwd=workdir, stderr=stderr)
        return cls(process, log)

    def halt_at(self, checkpoint: Path, point: str, statement: str) -> None:
        """Runs ``statement`` (``upsert``, ``duplicate``, ``transaction``, ``restore <target>``,
        see ``support/crash_write.py``) on ``checkpoint`` and waits until the JVM halted at
        ``point``."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        assert stdout.readline().strip() == "ready", self.log.read_text()[-2000:]
        stdin.write(f"{checkpoint} {point} {statement}\n")
        stdin.flush()
        out, _ = self.process.communicate(timeout=300)
        log = self.log.read_text()
        assert f"halting at crash point '{point}'" in log, f"{out} {log[-3000:]}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


@pytest.fixture(scope="module")
def writers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Writer]]:
    """Hands out started writer drivers. While cases remain, the next one starts in the
    background, so that its start-up overlaps the current case's restarts."""
    workdir = tmp_path_factory.mktemp("writers")
    spare: list[Writer] = []
    remaining = [len(CASES) + 2 + len(IMAGE_PROVIDERS)]  # and the restore, rewind, images

    def take() -> Writer:
        writer = spare.pop() if spare else Writer.start(workdir)
        remaining[0] -= 1
        if remaining[0] > 0:
            spare.append(Writer.start(workdir))
        return writer

    yield take
    for writer in spare:
        writer.stop()


# ---- the checks ----


@pytest.mark.parametrize(
    ("provider", "point", "statement"), CASES, ids=["-".join(case) for case in CASES]
)
def test_halted_write_leaves_a_restartable_checkpoint(
    spark, writers, tmp_path: Path, provider: str, point: str, statement: str
) -> None:
    writer = writers()
    query = build(spark, "agg", provider, tmp_path / "query")  # a copy of the session fixture
    # would not restart here: a restart re-lists the last batch's input files, which must be in
    # the query's own input folder
    n = last_batch(query.checkpoint)
    try:
        writer.halt_at(query.checkpoint, point, statement)
    finally:
        writer.stop()
    whole = point == "committed"
    assert last_batch(query.checkpoint) == (n + 1 if whole else n)
    assert (query.checkpoint / "offsets" / str(n + 1)).exists() == (point != "claimed")
    assert len(claims(query.checkpoint, n + 1)) == 1
    retry_first = query.copy(tmp_path / "retry-first")

    # (a) the catalog reads the last committed batch: without the edit, or with all of it
    attach(spark, str(query.checkpoint), CATALOG)
    assert rows(spark) == ([("alice", 100, 1000), *STATE_BEFORE[1:]] if whole else STATE_BEFORE)
    assert spark.table(TABLE).count() == (3 + KEYS if whole else 3)

    # (b) the query restarts from that state, and the state it commits reads back right
    query.add_input(restart_rows("agg"))
    assert query.run(spark) == (RESTARTED_EDITED if whole else RESTARTED)
    if not whole:
        assert rows(spark) == STATE_RESTARTED

    # (c) a write straight after the halt; the restarted query continues from it. After a
    # halted transaction or overwrite, the next transaction also removes the staging folder
    # it left.
    attach(spark, str(retry_first.checkpoint), CATALOG)
    staged = statement in ("transaction", "overwrite")
    assert bool(staging_folders(retry_first.checkpoint)) == staged
    with edit(spark) as tx:
        tx.sql(DAVE)
    assert not staging_folders(retry_first.checkpoint)
    expected_before = [("alice", 100, 1000), *STATE_BEFORE[1:]] if whole else STATE_BEFORE
    assert rows(spark) == [*expected_before, ("dave", 10, 100)]
    retry_first.add_input(restart_rows("agg"))
    alice = RESTARTED_EDITED[0] if whole else RESTARTED[0]
    assert retry_first.run(spark) == [alice, {"user": "dave", "cnt": 11, "total": 108}]


@pytest.mark.parametrize("provider", IMAGE_PROVIDERS)
def test_overwrite_halted_after_its_commit_is_completed_never_read_half(
    spark, writers, tmp_path: Path, provider: str
) -> None:
    writer = writers()
    query = build(spark, "agg", provider, tmp_path / "query")
    n = last_batch(query.checkpoint)
    try:
        writer.halt_at(query.checkpoint, "images-committed", "overwrite")
    finally:
        writer.stop()
    assert last_batch(query.checkpoint) == n + 1
    assert [p.name for f in staging_folders(query.checkpoint) for p in f.iterdir()] != []
    retry_first = query.copy(tmp_path / "retry-first")

    # batch n+1 is committed, its images are staged: reading it fails, naming the way out
    attach(spark, str(query.checkpoint), CATALOG)
    with pytest.raises(Exception, match="spark-savepoint recover"):
        spark.table(TABLE).collect()
    query.add_input(restart_rows("agg"))
    with pytest.raises(StreamingQueryException):  # nor can Spark's query load version n+2
        query.run(spark)

    # recover moves the images into place: the whole edit, and the query continues from it
    assert "moved the staged images of committed batch" in recover(spark, str(query.checkpoint))
    assert not staging_folders(query.checkpoint)
    assert rows(spark) == [("alice", 100, 1000), *STATE_BEFORE[1:]]
    assert spark.table(TABLE).count() == 3 + KEYS
    assert query.run(spark) == RESTARTED_EDITED

    # (c) the next write completes it first, then applies its own edit
    attach(spark, str(retry_first.checkpoint), CATALOG)
    spark.sql(DAVE)
    assert not staging_folders(retry_first.checkpoint)
    assert rows(spark) == [("alice", 100, 1000), *STATE_BEFORE[1:], ("dave", 10, 100)]
    retry_first.add_input(restart_rows("agg"))
    assert retry_first.run(spark) == [
        RESTARTED_EDITED[0],
        {"user": "dave", "cnt": 11, "total": 108},
    ]


def test_write_removes_snapshots_of_uncommitted_versions(
    spark, checkpoints, tmp_path: Path
) -> None:
    """A snapshot of version N+2 left next to the checkpoint (no commit refers to it) would
    outrank the version N+2 a write commits; the write removes it once it holds the batch."""
    checkpoint = checkpoints[("agg", "hdfs")].copy(tmp_path).checkpoint
    n = last_batch(checkpoint)
    for partition in (checkpoint / "state" / "0").glob("[0-9]*"):  # valid, but stale, snapshots
        shutil.copy(partition / f"{n + 1}.delta", partition / f"{n + 2}.snapshot")
    attach(spark, str(checkpoint), CATALOG)
    spark.sql(DAVE)
    assert rows(spark) == [*STATE_BEFORE, ("dave", 10, 100)]
    assert not list((checkpoint / "state" / "0").glob(f"*/{n + 2}.snapshot"))


def test_halted_restore_leaves_no_checkpoint_to_continue(spark, writers, tmp_path: Path) -> None:
    """A restore killed after its state and before its commit: the folder is no checkpoint a
    query continues from (its metadata file is still the restore's claim, which Spark cannot
    read: the query fails instead of starting from scratch), reads and another restore refuse
    it and leave it as it is, ``recover`` empties it, and a restore there is whole and the
    query continues from it."""
    writer = writers()
    query = build(spark, "agg", "hdfs", tmp_path / "query")
    savepoint = tmp_path / "savepoint"
    take_savepoint(spark, str(query.checkpoint), str(savepoint))
    shutil.rmtree(query.checkpoint)
    try:
        writer.halt_at(savepoint, "copy-state", f"restore {query.checkpoint}")
    finally:
        writer.stop()
    assert (query.checkpoint / "offsets" / "1").exists()
    assert not list((query.checkpoint / "commits").glob("[0-9]*"))
    assert len([p for p in (query.checkpoint / "state" / "0").iterdir() if p.name.isdigit()]) == 8
    before = snapshot(query.checkpoint)
    with pytest.raises(TargetNotEmpty, match="interrupted"), savepoint_errors():
        restore_savepoint(spark, str(savepoint), str(query.checkpoint), partitions=8)
    with pytest.raises(UnfinishedCheckpoint, match="spark-savepoint recover"), savepoint_errors():
        attach(spark, str(query.checkpoint), "unfinished")
    assert snapshot(query.checkpoint) == before
    query.add_input(restart_rows("agg"))
    with pytest.raises(Exception, match="No usable value for id"):
        query.run(spark)
    assert "the folder is empty" in recover(spark, str(query.checkpoint))
    assert not list(query.checkpoint.iterdir())
    restore_savepoint(spark, str(savepoint), str(query.checkpoint), partitions=8)
    assert query.run(spark) == RESTARTED


def test_a_rewind_halted_between_its_two_batches_is_completed_by_the_query(
    spark, writers, tmp_path: Path
) -> None:
    """A file source rewind commits batch b with the new position, plans b+1 with it too (so
    that the restarted source is never asked for a batch that goes backwards), then commits
    b+1. Halted after b's commit, the real query runs b+1 itself, from equal positions, and
    then reads again what lies after the new position."""
    source, checkpoint = tmp_path / "input", tmp_path / "files"
    source.mkdir()
    write_json(source, "a.json", [1, 2])
    run_file_count(spark, source, checkpoint)
    write_json(source, "c.json", [4, 1])
    run_file_count(spark, source, checkpoint)
    writer = writers()
    try:
        writer.halt_at(checkpoint, "committed", "rewind")
    finally:
        writer.stop()
    assert last_batch(checkpoint) == 2 and (checkpoint / "offsets" / "3").exists()
    assert not (checkpoint / "commits" / "3").exists()

    run_file_count(spark, source, checkpoint)  # the real query, restarted
    assert last_batch(checkpoint) == 4
    attach(spark, str(checkpoint), "done")
    counts = {r[0]: r["count"] for r in spark.table("done.agg_0.default").collect()}
    assert counts == {1: 3, 2: 1, 4: 2}, "c.json ([4, 1]) was read once more"
