"""Checkpoints where they live: on a real HDFS (Hadoop's MiniDFSCluster, reached by this
session's own Hadoop client) and on S3 (moto's server, reached through ``hadoop-aws`` by a
Spark driver of its own, ``tests.support.store_driver``). The same steps run on both stores:

- a real streaming query writes its checkpoint there; the catalog reads it (latest,
  ``VERSION AS OF``, ``metadata``), writes it (upsert, delete), rolls it back (an overwrite
  with an earlier batch's state), inspects it (rows, bytes, batches), updates and merges into
  it, looks a key up, takes a savepoint there and restores it onto 2 partitions; the doctor
  finds all three healthy, and names a state file removed from the savepoint;
  the edited and the restored checkpoints restart the real query, which goes on from the
  edited state; the same on HDFS from a driver whose executors run on Spark's standalone cluster
  (a master and two workers, each a JVM of its own: ``tests.support.standalone``);
- a fixture checkpoint copied there with Hadoop's FileSystem API (HDFS-backed state on HDFS,
  RocksDB on S3) is raced for by two writers: exactly one commits each batch;
- a checkpoint relocated from the local disk to S3 and back (``relocate --move``): the doctor
  finds each place healthy, and the query restarted at each place goes on from its state;
- the fail-if-exists create that claims ``offsets/<b>`` refuses a second claim, and of six
  writers racing for it exactly one wins: on HDFS through the NameNode's rename, on S3 through
  the conditional create (``If-None-Match``) the tool uses where the store offers it.

docs/storage.md says what is atomic on which store."""

from __future__ import annotations

import json
import re
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import start_program
from tests.support.hdfs import Hdfs, start_hdfs
from tests.support.jars import SHORT_LIVED_JVM
from tests.support.s3 import s3a_conf, start_s3
from tests.support.standalone import start_cluster
from tests.support.store_ops import Driver, InProcess, StepFailed
from tests.support.streaming_queries import KINDS, StreamingQuery, restart_rows

pytestmark = pytest.mark.slow

BUCKET = "checkpoints"
HALT_AT = "dev.sparksavepoint.haltAt"
"""The crash point property (``commit.CrashPoint``)."""
STATE_FILE = re.compile(r"^state/0/\d+/(\d+)(_[^.]*)?\.(delta|snapshot|zip|changelog)$")
COLUMNS = "user, cnt, total"


@pytest.fixture(scope="module")
def hdfs() -> Iterator[Hdfs]:
    with start_hdfs() as cluster:
        yield cluster


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Driver]:
    """A moto server with one bucket, and a Spark driver with the S3A jars that runs steps."""
    workdir = tmp_path_factory.mktemp("s3-driver")
    with start_s3() as server, open(workdir / "driver.log", "w") as log:
        server.create_bucket(BUCKET)
        conf = json.dumps(s3a_conf(server.endpoint))
        driver = Driver(start_program("store_driver", conf, cwd=workdir, stderr=log))
        try:
            yield driver
        finally:
            driver.stop()


Store = tuple[InProcess | Driver, str]


@dataclass
class OnCluster:
    """A driver whose executors run on Spark's standalone cluster."""

    step: Driver
    url: str
    """The master's URL, for another driver."""
    halt_armed: Path
    """Made, this folder arms the executors' crash point: the first task that commits a state
    partition then halts its executor's JVM as ``kill -9`` would (once: ``halted`` in it)."""


def cluster_conf(url: str) -> dict[str, str]:
    """A driver's settings on the standalone cluster at ``url``: an executor of one core on each
    of its two workers (of two cores each), so that two drivers can run at once."""
    return {"spark.master": url, "spark.cores.max": "2", "spark.executor.cores": "1",
            "spark.executor.memory": "512m",
            "spark.executor.extraJavaOptions": " ".join(SHORT_LIVED_JVM)}  # fmt: skip


@pytest.fixture(scope="module")
def cluster(hdfs: Hdfs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OnCluster]:
    """Spark's standalone cluster (a master and two workers, each a JVM of its own) and a driver
    of its own whose executors run there: nothing it does may rely on the driver's JVM or disk
    for state (its checkpoints live on ``hdfs``)."""
    workdir = tmp_path_factory.mktemp("cluster-driver")
    armed = workdir / "halt"
    with (
        start_cluster(workers=2, cores=2) as spark_cluster,
        open(workdir / "driver.log", "w") as log,
    ):
        conf = {
            **cluster_conf(spark_cluster.url),
            "spark.executor.extraJavaOptions": " ".join(
                [*SHORT_LIVED_JVM, f"-D{HALT_AT}=state@{armed / 'halted'}"]
            ),
        }
        driver = Driver(start_program("store_driver", json.dumps(conf), cwd=workdir, stderr=log))
        try:
            assert driver("executors") == 2
            yield OnCluster(driver, spark_cluster.url, armed)
        finally:
            driver.stop()


@pytest.fixture()
def store(request, spark) -> Store:
    """``(step runner, a new folder URI)`` on the store named by the parameter: ``hdfs`` from
    this session, ``cluster``: HDFS from a driver on a standalone cluster, ``s3``."""
    folder = uuid.uuid4().hex[:8]
    if request.param == "hdfs":
        return InProcess(spark), f"{request.getfixturevalue('hdfs').uri}/t/{folder}"
    if request.param == "cluster":
        uri = request.getfixturevalue("hdfs").uri
        return request.getfixturevalue("cluster").step, f"{uri}/t/{folder}"
    return request.getfixturevalue("s3"), f"s3a://{BUCKET}/t/{folder}"


def state(step, table: str) -> list[list]:
    return step("sql", text=f"SELECT {COLUMNS} FROM {table} ORDER BY user")


def fresh_query(root: Path, location: str, provider: str = "rocksdb") -> StreamingQuery:
    """The ``agg`` query (``cnt`` and ``total`` per user) over local input, checkpoint at
    ``location``."""
    return StreamingQuery("agg", provider, root, location=location)


def run(step, query: StreamingQuery) -> list[list]:
    """Run ``query`` in the step's driver; its rows as ``[user, cnt, total]``."""
    out = step("run", kind=query.kind, provider=query.provider, root=str(query.root),
               location=query.location)  # fmt: skip
    return [[r["user"], r["cnt"], r["total"]] for r in out]


def continues_from_the_edit(step, base: str, ckpt: str, root: Path, edit: str) -> None:
    """The query restarted on a copy of ``ckpt`` as ``edit`` left it (a restore of its last
    batch, on the same store) goes on from the edited state: alice's counter from her row."""
    copy = f"{base}/after-{edit}"
    step("restore", savepoint=ckpt, target=copy)
    alice = [row for row in state(step, "remote.agg_0.default") if row[0] == "alice"]
    cnt, total = alice[0][1:] if alice else (0, 0)
    restarted = fresh_query(root / edit, copy)
    restarted.add_input(restart_rows("agg"))
    assert run(step, restarted) == [["alice", cnt + 2, total + 8], ["dave", 1, 8]], edit


@pytest.mark.parametrize("store", ["hdfs", "s3", "cluster"], indirect=True)
def test_read_edit_roll_back_savepoint_and_restart(request, store: Store, tmp_path: Path) -> None:
    """Reads, every kind of edit, a savepoint restored onto 2 partitions, the doctor, and the
    query restarted on the results. On the cluster the query also restarts after each edit (on a
    copy of the checkpoint as the edit left it), run by executors on the workers."""
    step, base = store
    ckpt = f"{base}/checkpoint"
    on_cluster = request.node.callspec.params["store"] == "cluster"

    def edited(edit: str) -> None:
        if on_cluster:
            continues_from_the_edit(step, base, ckpt, tmp_path, edit)

    query = fresh_query(tmp_path / "query", ckpt)
    for rows in KINDS["agg"].initial:
        query.add_input(rows)
    assert run(step, query) == [["alice", 2, 17], ["bob", 1, 5], ["bob", 2, 10], ["carol", 1, 3]]
    written = step("files", uri=ckpt)
    assert {"metadata", "offsets/1", "commits/1"} <= set(written)
    assert any(STATE_FILE.match(f) for f in written), written

    # read: latest, time travel, metadata
    step("attach", path=ckpt, catalog="remote")
    latest = [["alice", 2, 17], ["bob", 2, 10], ["carol", 1, 3]]
    assert state(step, "remote.agg_0.default") == latest
    assert state(step, "remote.agg_0.default VERSION AS OF 0") == [["alice", 2, 17], ["bob", 1, 5]]
    [[where, provider, batch]] = step(
        "sql", text="SELECT checkpoint, provider, batch_id FROM remote.metadata WHERE uid = 'agg_0'"
    )
    assert (where.split("://")[0], where.rstrip("/").endswith("/checkpoint")) == (
        base.split("://")[0], True
    )  # fmt: skip
    assert (provider, batch) == ("rocksdb", 1)
    with pytest.raises(StepFailed, match="SAVEPOINT_NO_SUCH_BATCH"):
        state(step, "remote.agg_0.default VERSION AS OF 9")

    # write: an upsert (batch 2), a delete (3); roll back to batch 2 by writing its state (4)
    step("sql", text="INSERT INTO remote.agg_0.default VALUES ('alice', 100, 1000), ('zed', 5, 50)")
    edited("insert")
    upserted = [["alice", 100, 1000], ["bob", 2, 10], ["carol", 1, 3], ["zed", 5, 50]]
    assert state(step, "remote.agg_0.default") == upserted
    step("sql", text="DELETE FROM remote.agg_0.default WHERE user = 'alice'")
    edited("delete")
    assert state(step, "remote.agg_0.default") == upserted[1:]
    step("sql", text="INSERT OVERWRITE remote.agg_0.default "
                     "SELECT * FROM remote.agg_0.default VERSION AS OF 2")  # fmt: skip
    edited("overwrite")
    assert state(step, "remote.agg_0.default") == upserted
    assert step("last_batch", uri=ckpt) == 4

    # inspect: rows per partition from the state, bytes and batches from one listing
    report = step("inspect", checkpoint=ckpt)
    [op] = report["operators"]
    [table] = op["tables"]
    assert (report["batch_id"], report["committed_batches"]) == (4, [0, 1, 2, 3, 4])
    assert (op["uid"], table["rows"], len(table["rows_per_partition"])) == ("agg_0", 4, 4)
    assert op["bytes_on_disk"] >= sum(op["partition_bytes"]) > 0
    assert all(b["written"].get("agg_0", 0) > 0 for b in report["batches"] if b["batch_id"])

    # row-level commands (5, 6), and a key lookup in the tasks
    step("sql", text="UPDATE remote.agg_0.default SET total = total + 1 WHERE user = 'zed'")
    edited("update")
    merge = (
        "MERGE INTO remote.agg_0.default t USING (SELECT 'erin' AS user, 1L AS cnt, 2L AS total) s"
        " ON t.user = s.user WHEN NOT MATCHED THEN INSERT *"
    )
    step("sql", text=merge)
    edited("merge")
    edited = [*upserted[:3], ["erin", 1, 2], ["zed", 5, 51]]
    assert state(step, "remote.agg_0.default") == sorted(edited)
    lookup = "SELECT user, cnt, total FROM remote.agg_0.default WHERE user = 'zed'"
    assert step("sql", text=lookup) == [["zed", 5, 51]]
    assert "key lookup: 1 keys" in step("sql", text=f"EXPLAIN {lookup}")[0][0]

    # a savepoint of batch 6 on the same store, restored onto 2 partitions
    manifest = step("take", checkpoint=ckpt, target=f"{base}/savepoints/at-6")
    assert (manifest["batch_id"], manifest["operators"][0]["rows"]) == (6, 5)
    assert [b for _, b in step("list", folder=f"{base}/savepoints")] == [6]
    step("restore", savepoint=f"{base}/savepoints/at-6", target=f"{base}/restored", partitions=2)
    step("attach", path=f"{base}/restored", catalog="remote_restored")
    assert state(step, "remote_restored.agg_0.default") == sorted(edited)
    leftovers = [f for f in step("files", uri=base) if "_savepoint-tx-" in f or f.endswith(".tmp")]
    assert leftovers == []

    # the doctor: all healthy; a state file of the savepoint's last version gone is named
    savepoint = f"{base}/savepoints/at-6"
    for folder in (ckpt, f"{base}/restored", savepoint):
        assert step("verify", checkpoint=folder) == [], folder
    kept = [f for f in step("files", uri=savepoint) if STATE_FILE.match(f)]
    newest = max(kept, key=lambda f: int(STATE_FILE.match(f).group(1)))
    assert step("delete", uri=f"{savepoint}/{newest}")
    assert step("verify", checkpoint=savepoint) == [["STATE_FILE_MISSING", "error", newest]]

    # both go on from alice's written counter (the query alone would emit alice 4 25)
    for name, location in (("query", ckpt), ("restored", f"{base}/restored")):
        restarted = fresh_query(tmp_path / name, location)
        restarted.add_input(restart_rows("agg"))
        assert run(step, restarted) == [["alice", 102, 1008], ["dave", 1, 8]], name


@pytest.mark.parametrize(("store", "provider"), [("hdfs", "hdfs"), ("s3", "rocksdb")],
                         indirect=["store"])  # fmt: skip
def test_racing_writers(store: Store, provider: str, checkpoints, tmp_path: Path) -> None:
    """A fixture checkpoint copied onto the store (HDFS-backed state on HDFS, RocksDB on S3);
    two writers race for each of 3 batches: exactly one commits each, the state holds exactly
    the winners' keys, no state file of a batch that was not committed stays, and the restarted
    query continues from them."""
    step, base = store
    ckpt = f"{base}/checkpoint"
    step("upload", local=str(checkpoints[("agg", provider)].checkpoint), uri=ckpt)
    # no claims folder yet: both writers create it, and both may remove it again
    rounds = 3
    outcomes = step("race", checkpoint=ckpt, rounds=rounds)
    assert set(outcomes.values()) <= {"ok", "SAVEPOINT_CONCURRENT_WRITE"}, outcomes
    won = sorted(user for user, result in outcomes.items() if result == "ok")
    assert all(len({f"a{r}", f"b{r}"} & set(won)) == 1 for r in range(rounds)), outcomes
    step("attach", path=ckpt, catalog="raced")
    stored = {user: (cnt, total) for user, cnt, total in state(step, "raced.agg_0.default")}
    assert {u: v for u, v in stored.items() if u in outcomes} == {
        user: (10 + int(user[1:]), 100 + int(user[1:])) for user in won
    }
    last = step("last_batch", uri=ckpt)
    assert last == 1 + len(won)
    versions = {int(m.group(1)) for f in step("files", uri=ckpt) if (m := STATE_FILE.match(f))}
    assert max(versions) == last + 1, "state files of an uncommitted version were left behind"

    query = fresh_query(tmp_path / "query", ckpt, provider=provider)
    tried = sorted(outcomes)
    query.add_input([{"event_id": 9000 + i, "user": user, "item": "apple", "amount": 1,
                      "ts": "2024-01-01 10:30:00"} for i, user in enumerate(tried)])  # fmt: skip
    assert run(step, query) == [
        [user, *((11 + int(user[1:]), 101 + int(user[1:])) if user in won else (1, 1))]
        for user in tried
    ]


@pytest.mark.parametrize("store", ["hdfs", "s3"], indirect=True)
def test_a_second_claim_of_a_batch_is_refused(store: Store) -> None:
    """The fail-if-exists create that claims ``offsets/<b>`` (and writes ``commits/<b>``)
    refuses a file that exists and leaves it as it was."""
    step, base = store
    claimed = f"{base}/offsets/7"
    assert step("write_new", uri=claimed, text="v1\nfirst") == "ok"
    assert step("write_new", uri=claimed, text="v1\nsecond") == "exists"
    assert step("read_text", uri=claimed) == "v1\nfirst"
    assert step("files", uri=base) == ["offsets/7"]


@pytest.mark.parametrize("store", ["hdfs", "s3"], indirect=True)
def test_racing_claims_one_wins(store: Store) -> None:
    """Six writers create the same ``offsets/<b>`` at once, five times: exactly one wins each
    time and the file holds its bytes. On HDFS the rename that publishes the file fails in the
    NameNode if the target exists; on S3 the single PUT carries ``If-None-Match: *`` and the
    store refuses all but the first."""
    step, base = store
    for trial in range(5):
        claimed = f"{base}/offsets/{trial}"
        results = step("race_write_new", uri=claimed, writers=6)
        assert sorted(results) == ["exists"] * 5 + ["ok"]
        assert step("read_text", uri=claimed) == f"v1\nwriter {results.index('ok')}"
    assert step("files", uri=base) == [f"offsets/{trial}" for trial in range(5)]


@pytest.mark.parametrize(("store", "conditional"), [("hdfs", False), ("s3", True)],
                         indirect=["store"])  # fmt: skip
def test_the_claim_uses_the_stores_own_conditional_create(store: Store, conditional: bool) -> None:
    """Which primitive ``writeNew`` takes: S3A (hadoop-aws 3.5) offers the conditional create
    (a PUT with ``If-None-Match: *``), HDFS does not and keeps the rename that fails if the
    target exists."""
    step, base = store
    assert step("conditional_create", uri=f"{base}/offsets/0") is conditional


@pytest.mark.parametrize("store", ["s3"], indirect=True)  # HDFS: tests/system/test_relocate.py
def test_relocate_there_and_back(store: Store, tmp_path: Path) -> None:
    step, base = store
    local, back = tmp_path / "query" / "checkpoint", tmp_path / "back"
    query = fresh_query(tmp_path / "query", str(local))
    for rows in KINDS["agg"].initial:
        query.add_input(rows)
    run(step, query)

    remote = f"{base}/moved"
    said = step("relocate", source=str(local), target=remote, move=True)
    assert said.endswith("the doctor finds no error there."), said
    assert not local.exists() and step("verify", checkpoint=remote) == []
    query.location = remote
    query.add_input(restart_rows("agg"))
    assert run(step, query) == [["alice", 4, 25], ["dave", 1, 8]]  # on from alice 2, 17

    step("relocate", source=remote, target=str(back), move=True)
    assert step("files", uri=base) == [] and step("verify", checkpoint=str(back)) == []
    query.location = str(back)
    query.add_input([{"event_id": 9, "user": "dave", "item": "fig", "amount": 2,
                      "ts": "2024-01-01 10:09:00"}])  # fmt: skip
    assert run(step, query) == [["dave", 2, 10]]


def started_on_hdfs(
    step: Driver, hdfs: Hdfs, tmp_path: Path, provider: str
) -> tuple[str, StreamingQuery]:
    """The ``agg`` query run once by ``step``'s driver over its first input, its checkpoint in a
    new folder on ``hdfs``: the checkpoint's URI, and the query."""
    ckpt = f"{hdfs.uri}/t/{uuid.uuid4().hex[:8]}/checkpoint"
    query = fresh_query(tmp_path / "query", ckpt, provider)
    for rows in KINDS["agg"].initial:
        query.add_input(rows)
    run(step, query)
    return ckpt, query


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_an_executor_killed_in_an_edit_is_retried_and_the_edit_commits_once(
    cluster: OnCluster, hdfs: Hdfs, provider: str, tmp_path: Path
) -> None:
    """On the standalone cluster, the executor that commits the first state partition of an
    edit dies as ``kill -9`` would; Spark retries its task on an executor that lives, and the
    edit commits whole, as one batch; the restarted query continues from it."""
    step = cluster.step
    ckpt, query = started_on_hdfs(step, hdfs, tmp_path, provider)
    step("attach", path=ckpt, catalog="killed")
    keys = [[f"k{i}", i, 10 * i] for i in range(10)]
    values = ", ".join(f"('{u}', {c}, {t})" for u, c, t in keys)
    cluster.halt_armed.mkdir()
    step("sql", text=f"INSERT INTO killed.agg_0.default VALUES {values}")
    assert (cluster.halt_armed / "halted").exists()  # an executor did die in the write
    assert step("last_batch", uri=ckpt) == 2  # one batch, committed once
    latest = [["alice", 2, 17], ["bob", 2, 10], ["carol", 1, 3]]
    assert state(step, "killed.agg_0.default") == sorted(latest + keys)
    query.add_input(restart_rows("agg"))
    assert run(step, query) == [["alice", 4, 25], ["dave", 1, 8]]
    assert step("executors") == 2  # the worker started a new executor
    shutil.rmtree(cluster.halt_armed)


def test_a_driver_killed_in_an_edit_leaves_the_last_batch_whole(
    cluster: OnCluster, hdfs: Hdfs, tmp_path: Path
) -> None:
    """A driver on the cluster dies as ``kill -9`` would after every state partition of its
    edit is written and before its commit-log entry: the next driver reads the batch before
    the edit, whole, and writes on it; the restarted query continues without the dead edit."""
    step = cluster.step
    ckpt, query = started_on_hdfs(step, hdfs, tmp_path, "hdfs")
    workdir = tmp_path / "doomed"
    workdir.mkdir()
    conf = {
        **cluster_conf(cluster.url),
        "spark.driver.extraJavaOptions": f"-D{HALT_AT}=state-committed"
        f" -Dderby.system.home={workdir}",
    }
    with open(workdir / "driver.log", "w") as log:
        doomed = Driver(start_program("store_driver", json.dumps(conf), cwd=workdir, stderr=log))
        try:
            doomed("attach", path=ckpt, catalog="doomed")
            # the JVM halts; its Python side finds py4j's connection gone, in whichever words
            # py4j uses at that moment (refused, empty answer, error while sending or receiving)
            with pytest.raises(StepFailed, match="exited|Py4J|Connection refused"):
                doomed("sql", text="INSERT INTO doomed.agg_0.default VALUES ('alice', 100, 1000)")
        finally:
            doomed.stop()
    assert "halting at crash point 'state-committed'" in (workdir / "driver.log").read_text()

    assert step("last_batch", uri=ckpt) == 1  # batch N: the edit never committed
    findings = step("verify", checkpoint=ckpt)  # the doctor says so: batch 2 is only planned
    assert ["UNCOMMITTED_BATCH", "info"] in [f[:2] for f in findings], findings
    assert all(severity != "error" for _, severity, _ in findings), findings
    step("attach", path=ckpt, catalog="after_kill")
    latest = [["alice", 2, 17], ["bob", 2, 10], ["carol", 1, 3]]
    assert state(step, "after_kill.agg_0.default") == latest, findings
    step("sql", text="INSERT INTO after_kill.agg_0.default VALUES ('zed', 5, 50)")
    assert state(step, "after_kill.agg_0.default") == [*latest, ["zed", 5, 50]]
    query.add_input(restart_rows("agg"))
    assert run(step, query) == [["alice", 4, 25], ["dave", 1, 8]]


def test_an_edit_after_the_name_node_restarted_works(
    cluster: OnCluster, hdfs: Hdfs, tmp_path: Path
) -> None:
    """HDFS's NameNode restarts between two edits from the cluster's driver: the second edit
    works, and the restarted query continues from both."""
    step = cluster.step
    ckpt, query = started_on_hdfs(step, hdfs, tmp_path, "rocksdb")
    step("attach", path=ckpt, catalog="renamed")
    step("sql", text="INSERT INTO renamed.agg_0.default VALUES ('alice', 100, 1000)")
    hdfs.restart_namenode()
    step("sql", text="DELETE FROM renamed.agg_0.default WHERE user = 'bob'")
    assert step("last_batch", uri=ckpt) == 3
    assert state(step, "renamed.agg_0.default") == [["alice", 100, 1000], ["carol", 1, 3]]
    query.add_input(restart_rows("agg"))
    assert run(step, query) == [["alice", 102, 1008], ["dave", 1, 8]]
