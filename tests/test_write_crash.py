"""A write killed half-way leaves a checkpoint the streaming query restarts from.

Each case builds the ``agg`` query in its own folder and kills a write into its checkpoint: a
large upsert by ``tests/crash_write.py`` in its own driver, which also sets alice's counters to
100/1000, so that a leaked edit would show in the restarted query's output. The driver (Python
and its JVM, one process group) gets SIGKILL at one point of the write, N being the last
committed batch:

* ``state``: the first store partitions have committed state version N+2, the others have not;
* ``all-state``: every store partition has version N+2, offsets/N+1 is not written yet;
* ``offsets``: offsets/N+1 is written, commits/N+1 is not.

The last two points last a few milliseconds. The test holds the writer there: it turns the
checksum file of the log entry the writer reads next (``offsets/.N.crc``, ``commits/.N.crc``) into
a FIFO that nobody writes, so Hadoop's local file system blocks opening it. The file is restored
right after the kill.

After the kill (a) the catalog reads batch N, unchanged; (b) the real query restarts with new
input, continues from the pre-edit state and commits state that reads back right; (c) a new
write succeeds, after the restart or straight after the crash (then the restarted query sees
it); straight after a crash at ``offsets`` it is refused until the query has run.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from sql_ext import attach
from tests.streaming_queries import StreamingQuery, build, restart_rows

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
CATALOG = "crashed"
TABLE = f"{CATALOG}.agg_0.default"
KEYS = 200_000
"""Keys of the killed upsert: its tasks run for a second or more."""
CASES = [("hdfs", "state"), ("hdfs", "offsets"),
         ("rocksdb", "state"), ("rocksdb", "all-state"), ("rocksdb", "offsets")]
STATE_BEFORE = [("alice", 2, 17), ("bob", 2, 10), ("carol", 1, 3)]
"""The query's state after its two default batches (user, count, sum)."""
RESTARTED = [{"user": "alice", "cnt": 4, "total": 25}, {"user": "dave", "cnt": 1, "total": 8}]
"""The restart wave's output on the pre-edit state (the killed edit would make alice 102)."""
STATE_RESTARTED = [("alice", 4, 25), ("bob", 2, 10), ("carol", 1, 3), ("dave", 1, 8)]
DAVE = "INSERT INTO crashed.agg_0.default VALUES ('dave', 10, 100)"


def rows(spark) -> list[tuple]:
    return sorted(tuple(r)[:-1] for r in spark.table(TABLE).collect())


def last_batch(checkpoint: Path) -> int:
    return max(int(p.name) for p in (checkpoint / "commits").iterdir() if p.name.isdigit())


def committed_versions(checkpoint: Path, version: int) -> list[Path]:
    """State files of ``version`` that a store partition has committed (not temporary files)."""
    return [p for p in (checkpoint / "state" / "0").glob(f"*/{version}.*")
            if p.suffix in (".delta", ".zip", ".changelog")]


# ---- the killed writer ----


@dataclass
class Writer:
    """A started ``tests/crash_write.py``: its process, leader of its own process group (the
    Python driver and its JVM), and the file its stderr goes to."""

    process: subprocess.Popen
    log: Path

    @classmethod
    def start(cls, workdir: Path) -> Writer:
        log = workdir / f"writer-{len(list(workdir.glob('writer-*.log')))}.log"
        with log.open("w") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.crash_write", str(KEYS)],
                cwd=workdir, env={**os.environ, "PYTHONPATH": str(ROOT)},
                start_new_session=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=stderr, text=True)
        return cls(process, log)

    def kill(self) -> None:
        """SIGKILL to the whole process group: the Python driver and its JVM at once."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def errors(self) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if "Error" in line][-3:]


@pytest.fixture(scope="module")
def writers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Writer]]:
    """Hands out started writer drivers. While cases remain, the next one starts in the
    background, so that its start-up overlaps the current case's restarts."""
    workdir = tmp_path_factory.mktemp("writers")
    spare: list[Writer] = []
    remaining = [len(CASES)]

    def take() -> Writer:
        writer = spare.pop() if spare else Writer.start(workdir)
        remaining[0] -= 1
        if remaining[0] > 0:
            spare.append(Writer.start(workdir))
        return writer

    yield take
    for writer in spare:
        writer.kill()


def wait_for(condition: Callable[[], bool], writer: Writer, what: str) -> None:
    """Polls the checkpoint folder until ``condition`` holds; fails if the writer ends first."""
    deadline = time.monotonic() + 180
    while not condition():
        if writer.process.poll() is not None:
            pytest.fail(f"the write ended (exit code {writer.process.returncode}) before {what}:"
                        f" {writer.errors()}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.002)


@contextmanager
def held_before_reading(entry: Path) -> Iterator[None]:
    """Blocks whoever next opens ``entry`` through Hadoop's checksummed local file system: the
    entry's checksum file becomes a FIFO nobody writes. Restores the checksum file on exit."""
    crc = entry.with_name(f".{entry.name}.crc")
    saved = crc.read_bytes()
    fifo = crc.with_name(crc.name + ".fifo")
    os.mkfifo(fifo)
    os.replace(fifo, crc)
    try:
        yield
    finally:
        crc.unlink()
        crc.write_bytes(saved)


def crash(writer: Writer, checkpoint: Path, point: str) -> None:
    """Lets ``writer`` upsert into ``checkpoint`` and kills it at ``point``."""
    n = last_batch(checkpoint)
    version = n + 2
    try:
        stdin, stdout = writer.process.stdin, writer.process.stdout
        assert stdin is not None and stdout is not None
        assert stdout.readline().strip() == "ready", writer.log.read_text()[-2000:]
        stdin.write(f"{checkpoint}\n")
        stdin.flush()
        if point == "state":
            wait_for(lambda: bool(committed_versions(checkpoint, version)), writer,
                     f"a store partition committed version {version}")
            writer.kill()
            return
        wait_for(lambda: any((checkpoint / "state" / "0").glob(f"*/.{version}.*.tmp")), writer,
                 "the write's tasks started")
        held = checkpoint / ("offsets" if point == "all-state" else "commits") / str(n)
        with held_before_reading(held):
            if point == "all-state":
                wait_for(lambda: len(committed_versions(checkpoint, version)) == 4, writer,
                         f"every store partition committed version {version}")
            else:
                wait_for((checkpoint / "offsets" / str(n + 1)).exists, writer,
                         f"offsets/{n + 1} was written")
            writer.kill()
    finally:
        writer.kill()


# ---- the checks ----


@pytest.mark.parametrize(("provider", "point"), CASES, ids=[f"{p}-{x}" for p, x in CASES])
def test_killed_write_leaves_a_restartable_checkpoint(spark, writers, tmp_path: Path,
                                                      provider: str, point: str) -> None:
    writer = writers()
    query = build(spark, "agg", provider, tmp_path / "query")  # a copy of the session fixture
    # would not restart here: a restart re-lists the last batch's input files, which must be in
    # the query's own input folder
    n = last_batch(query.checkpoint)
    crash(writer, query.checkpoint, point)
    assert last_batch(query.checkpoint) == n
    assert (query.checkpoint / "offsets" / str(n + 1)).exists() == (point == "offsets")
    assert committed_versions(query.checkpoint, n + 2)  # the kill left files of the edit
    retry_first = StreamingQuery("agg", provider, tmp_path / "retry-first")
    shutil.copytree(query.checkpoint, retry_first.checkpoint)

    # (a) the catalog still reads batch N, without the edit
    attach(spark, str(query.checkpoint), CATALOG)
    assert rows(spark) == STATE_BEFORE
    assert spark.table(f"{CATALOG}.metadata").first()["batch_id"] == n

    # (b) the query restarts from the pre-edit state, and the state it commits reads back right
    query.add_input(restart_rows("agg"))
    assert query.run(spark) == RESTARTED
    assert rows(spark) == STATE_RESTARTED

    # (c) a write after the restart
    spark.sql(DAVE)
    assert rows(spark) == [*STATE_RESTARTED[:3], ("dave", 10, 100)]

    # (c) a write straight after the crash; the restarted query continues from it
    attach(spark, str(retry_first.checkpoint), CATALOG)
    if point == "offsets":  # batch N+1 is planned: Spark re-runs it when the query restarts
        with pytest.raises(Exception, match=rf"SAVEPOINT_UNCOMMITTED_BATCH.*batch {n + 1}"):
            spark.sql(DAVE)
        return
    spark.sql(DAVE)
    assert rows(spark) == [*STATE_BEFORE, ("dave", 10, 100)]
    retry_first.add_input(restart_rows("agg"))
    assert retry_first.run(spark) == [RESTARTED[0], {"user": "dave", "cnt": 11, "total": 108}]
    assert rows(spark) == [*STATE_RESTARTED[:3], ("dave", 11, 108)]


def test_write_removes_snapshots_of_uncommitted_versions(spark, checkpoints,
                                                         tmp_path: Path) -> None:
    """A snapshot of version N+2 left next to the checkpoint (no commit refers to it) would
    outrank the version N+2 a write commits; the write removes it first."""
    checkpoint = tmp_path / "checkpoint"
    shutil.copytree(checkpoints[("agg", "hdfs")].checkpoint, checkpoint)
    n = last_batch(checkpoint)
    for partition in (checkpoint / "state" / "0").glob("[0-9]*"):  # valid, but stale, snapshots
        shutil.copy(partition / f"{n + 1}.delta", partition / f"{n + 2}.snapshot")
    attach(spark, str(checkpoint), CATALOG)
    spark.sql(DAVE)
    assert rows(spark) == [*STATE_BEFORE, ("dave", 10, 100)]
    assert not list((checkpoint / "state" / "0").glob(f"*/{n + 2}.snapshot"))
