"""Two edits at the same moment: exactly one commits each batch, the other refuses cleanly.

Two writers upsert different keys into one checkpoint at once, many times: two threads of this
session (each through its own catalog name), and two Spark drivers in their own processes
(``tests/support/race_write.py``), on both providers. A writer either commits or refuses with
SAVEPOINT_CONCURRENT_WRITE. Afterwards the catalog holds exactly the edits that reported
success, no state file of an uncommitted version is left, and the real streaming query,
restarted with one event per key tried, continues from exactly those edits.
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from spark_savepoint import attach
from tests.support import start_program
from tests.support.checkpoint_files import last_batch
from tests.support.streaming_queries import StreamingQuery

pytestmark = pytest.mark.slow

PROVIDERS = ("hdfs", "rocksdb")
THREAD_ROUNDS = 8
PROCESS_ROUNDS = 6
VERSION_FILE = re.compile(r"(\d+)(_[^.]*)?\.(delta|snapshot|zip|changelog)$")

Attempt = tuple[str, int, int]  # user, cnt, total
Outcome = dict[str, str]  # user -> "ok" or the error class


def attempt(writer: str, round_: int) -> Attempt:
    return f"{writer}{round_}", 10 + round_, 100 + round_


def check(spark, query: StreamingQuery, outcomes: Outcome, tried: list[Attempt]) -> None:
    """Only lost races, exactly one winner per round (the claim's tie-break: racing writers do
    not all back off); the catalog, the state files and the restarted query show exactly the
    successful edits."""
    assert set(outcomes.values()) <= {"ok", "SAVEPOINT_CONCURRENT_WRITE"}, outcomes
    won = {user for user, result in outcomes.items() if result == "ok"}
    rounds = {user[1:] for user, _, _ in tried}
    assert all(len({f"a{r}", f"b{r}"} & won) == 1 for r in rounds), outcomes
    attach(spark, str(query.checkpoint), "raced")
    stored = {r[0]: (r[1], r[2]) for r in spark.table("raced.agg_0.default").collect()}
    assert {u: v for u, v in stored.items() if u in {t[0] for t in tried}} == {
        user: (cnt, total) for user, cnt, total in tried if user in won
    }
    last = last_batch(query.checkpoint)
    versions = {
        int(m.group(1))
        for p in (query.checkpoint / "state").rglob("*")
        if (m := VERSION_FILE.match(p.name))
    }
    assert max(versions) == last + 1, "state files of an uncommitted version were left behind"

    query.add_input(
        [
            {
                "event_id": 9000 + i,
                "user": user,
                "item": "apple",
                "amount": 1,
                "ts": "2024-01-01 10:30:00",
            }
            for i, (user, _, _) in enumerate(tried)
        ]
    )
    restarted = {r["user"]: (r["cnt"], r["total"]) for r in query.run(spark)}
    assert restarted == {
        user: (cnt + 1, total + 1) if user in won else (1, 1) for user, cnt, total in tried
    }


@pytest.mark.parametrize("provider", PROVIDERS)
def test_racing_threads(spark, checkpoints, tmp_path: Path, provider: str) -> None:
    query = checkpoints[("agg", provider)].copy(tmp_path / "query")
    for name in ("race_a", "race_b"):
        attach(spark, str(query.checkpoint), name)
    outcomes: Outcome = {}
    tried: list[Attempt] = []
    for round_ in range(THREAD_ROUNDS):
        barrier = threading.Barrier(2)

        def write(
            writer: str, catalog: str, round_: int = round_, barrier: threading.Barrier = barrier
        ) -> None:
            user, cnt, total = attempt(writer, round_)
            barrier.wait()
            try:
                spark.sql(f"INSERT INTO {catalog}.agg_0.default VALUES ('{user}', {cnt}, {total})")
                outcomes[user] = "ok"
            except Exception as error:
                found = re.search(r"SAVEPOINT_[A-Z_]+", str(error))
                outcomes[user] = found.group(0) if found else str(error)[:300]

        threads = [
            threading.Thread(target=write, args=("a", "race_a")),
            threading.Thread(target=write, args=("b", "race_b")),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        tried += [attempt("a", round_), attempt("b", round_)]
    check(spark, query, outcomes, tried)


@pytest.fixture(scope="module")
def drivers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], list]]:
    """Two started ``tests/support/race_write.py`` drivers, shared by the process cases."""
    workdir = tmp_path_factory.mktemp("racers")
    processes = [
        start_program("race_write", cwd=workdir, stderr=subprocess.DEVNULL) for _ in range(2)
    ]
    for process in processes:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    yield lambda: processes
    for process in processes:
        process.communicate(timeout=120)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_racing_processes(spark, checkpoints, drivers, tmp_path: Path, provider: str) -> None:
    query = checkpoints[("agg", provider)].copy(tmp_path / "query")
    outcomes: Outcome = {}
    tried: list[Attempt] = []
    for round_ in range(PROCESS_ROUNDS):
        attempts = [attempt(writer, round_) for writer in ("a", "b")]
        for process, (user, cnt, total) in zip(drivers(), attempts, strict=True):
            process.stdin.write(f"{query.checkpoint} {user} {cnt} {total}\n")
        for process in drivers():
            process.stdin.flush()
        for process, (user, _, _) in zip(drivers(), attempts, strict=True):
            outcomes[user] = process.stdout.readline().strip()
        tried += attempts
    check(spark, query, outcomes, tried)
