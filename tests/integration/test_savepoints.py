"""Savepoints without restarts: what take writes (a compact folder and its manifest), that the
checkpoint is left as it was, opening a savepoint as a catalog (read-only unless writable),
user uids, list and dispose, checksum verification, and the refusals. The restarts that prove a
restored checkpoint continues are in tests/system/test_savepoint_restore.py."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from spark_savepoint import (
    attach,
    dispose_savepoint,
    list_savepoints,
    restore_savepoint,
    savepoint_errors,
    take_savepoint,
)
from spark_savepoint.catalog import settings
from spark_savepoint.catalog.errors import (
    BadArguments,
    ChecksumMismatch,
    NotASavepoint,
    ReadOnlySavepoint,
    TargetNotEmpty,
)
from tests.support.checkpoint_files import last_batch, snapshot


def rows(spark, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect())


@pytest.fixture()
def agg(checkpoints):
    return checkpoints[("agg", "rocksdb")]


def test_take_writes_a_compact_savepoint_and_leaves_the_checkpoint_alone(
    spark, agg, tmp_path: Path
) -> None:
    before = snapshot(agg.checkpoint)
    target = tmp_path / "sp"
    manifest = take_savepoint(spark, str(agg.checkpoint), str(target))
    assert snapshot(agg.checkpoint) == before
    assert manifest["batch_id"] == 1 and manifest["writable"] is False
    assert manifest["source"]["checkpoint"].endswith(str(agg.checkpoint))
    assert manifest["provider"] == "rocksdb" and manifest["partitions"] == 4
    [op] = manifest["operators"]
    assert (op["uid"], op["kind"], op["rows"]) == ("agg_0", "agg", 3)
    assert op["stores"][0]["key_schema"] == "struct<user:string>"
    on_disk = json.loads((target / "_savepoint.json").read_text())
    assert on_disk == manifest
    listed = {f["path"] for f in manifest["files"]}
    files = {str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()}
    assert listed == {f for f in files if not f.endswith(".crc")} - {"_savepoint.json"}
    # one full image of version 2 per partition, the logs of batches 0 and 1 only
    state = sorted(f for f in listed if f.startswith("state/0/") and "_metadata" not in f)
    assert [f.split("/")[-1] for f in state if f.endswith(".zip")] == ["2.zip"] * 4
    assert not [f for f in state if f.endswith((".changelog", ".delta"))]
    assert {f for f in listed if f.startswith(("offsets/", "commits/"))} == {
        "offsets/0", "offsets/1", "commits/1"
    }  # fmt: skip


def copy_jobs(spark, group: str) -> int:
    """How many of job group ``group``'s jobs copied state (``StateImage``'s)."""
    tracker = spark.sparkContext.statusTracker()
    return sum(
        any("StateImage" in tracker.getStageInfo(stage).name for stage in info.stageIds)
        for info in map(tracker.getJobInfo, tracker.getJobIdsForGroup(group))
    )


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_small_images_are_copied_by_the_driver_as_a_job_would(
    spark, checkpoints, tmp_path: Path, provider: str
) -> None:
    """A store whose operator folder holds at most ``spark.savepoint.copy.onDriverBytes`` is
    copied by the driver (no Spark job); with the setting at 0 every store is copied by a job's
    tasks: both savepoints hold the same files, byte for byte, and the same manifest. (Both are
    taken of a savepoint, whose version is one full image per partition: the checkpoint's own
    are changes, which are copied entry by entry, in a job.)"""
    ckpt = str(tmp_path / "base")
    take_savepoint(spark, str(checkpoints[("agg", provider)].checkpoint), ckpt)
    try:
        spark.sparkContext.setJobGroup(f"driver-{provider}", "a take copied on the driver")
        driver = take_savepoint(spark, ckpt, str(tmp_path / "driver"))
        spark.conf.set(settings.COPY_ON_DRIVER_BYTES, "0")
        spark.sparkContext.setJobGroup(f"tasks-{provider}", "a take copied by tasks")
        tasks = take_savepoint(spark, ckpt, str(tmp_path / "tasks"))
    finally:
        spark.conf.unset(settings.COPY_ON_DRIVER_BYTES)
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    assert (copy_jobs(spark, f"driver-{provider}"), copy_jobs(spark, f"tasks-{provider}")) == (0, 1)
    spark.conf.set(settings.COPY_ON_DRIVER_BYTES, "lots")
    try:
        with pytest.raises(BadArguments, match="copy.onDriverBytes is 'lots', which is no size"):
            take_savepoint(spark, ckpt, str(tmp_path / "refused"))
    finally:
        spark.conf.unset(settings.COPY_ON_DRIVER_BYTES)
    assert not (tmp_path / "refused").exists()
    assert driver["files"] == tasks["files"] and len(driver["files"]) > 5
    assert driver["operators"] == tasks["operators"] and driver["batch_id"] == 1
    image = [f["path"] for f in driver["files"] if f["path"].startswith("state/0/1/")]
    assert image and all(p.endswith(("2.snapshot", "2.zip", ".sst")) for p in image)
    for path in image:
        assert (tmp_path / "driver" / path).read_bytes() == (tmp_path / "tasks" / path).read_bytes()


def test_hdfs_backed_rows_are_counted_only_when_asked(spark, checkpoints, tmp_path, capsys) -> None:
    """An HDFS-backed image copied as it is (batch 0's ``1.delta``) records no row count: the take
    copies it unread (``rows`` null, "rows not counted", ``-`` listed); ``count_rows`` reads
    every record and counts them, and both savepoints hold the same files."""
    from spark_savepoint.sql_ext.cli import main

    ckpt = str(checkpoints[("agg", "hdfs")].checkpoint)
    plain = take_savepoint(spark, ckpt, str(tmp_path / "sps" / "plain"), batch=0)
    [op] = plain["operators"]
    assert (plain["rows"], op["rows"], op["stores"][0]["rows"]) == (None, None, None)
    counted = take_savepoint(spark, ckpt, str(tmp_path / "sps" / "counted"), batch=0,
                             count_rows=True)  # fmt: skip
    assert (counted["rows"], counted["operators"][0]["rows"]) == (2, 2)  # batch 0: alice, bob
    assert [f["sha256"] for f in plain["files"]] == [f["sha256"] for f in counted["files"]]
    assert [(i.batch_id, i.rows) for i in list_savepoints(spark, str(tmp_path / "sps"))] == [
        (0, 2), (0, None)
    ]  # fmt: skip
    assert main(["savepoint", "take", ckpt, str(tmp_path / "cli"), "--batch", "0"]) == 0
    assert "agg_0 rows not counted; rows not counted," in capsys.readouterr().out
    assert main(["savepoint", "take", ckpt, str(tmp_path / "cli2"), "--batch", "0",
                 "--count-rows"]) == 0  # fmt: skip
    assert "agg_0 2 rows; 2 rows," in capsys.readouterr().out
    assert main(["savepoint", "list", str(tmp_path / "sps" / "plain")]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[-3:-2] == ["-"]


def test_savepoint_reads_like_the_checkpoint_and_is_read_only(
    spark, checkpoints, tmp_path: Path
) -> None:
    query = checkpoints[("dedup", "hdfs")]
    target = tmp_path / "sp"
    take_savepoint(spark, str(query.checkpoint), str(target))
    attach(spark, str(query.checkpoint), "orig")
    attach(spark, str(target), "sp")
    assert rows(spark, "sp.dedup_0.default") == rows(spark, "orig.dedup_0.default")
    assert rows(spark, "sp.dedup_0.default VERSION AS OF 1") == rows(spark, "sp.dedup_0.default")
    before = snapshot(target)
    with pytest.raises(ReadOnlySavepoint, match="savepoints are immutable"), savepoint_errors():
        spark.sql("DELETE FROM sp.dedup_0.default WHERE event_id = 1")
    assert snapshot(target) == before
    attach(spark, str(target), "sp", writable=True)
    spark.sql("DELETE FROM sp.dedup_0.default WHERE event_id = 1")
    assert last_batch(target) == 2
    assert 1 not in {r[0] for r in rows(spark, "sp.dedup_0.default")}


def test_user_uids_name_operators_in_the_catalog(spark, agg, tmp_path: Path) -> None:
    target = tmp_path / "sp"
    manifest = take_savepoint(spark, str(agg.checkpoint), str(target), uids={"0": "by_user"})
    assert manifest["operators"][0]["user_uid"] == "by_user"
    attach(spark, str(target), "named")
    names = {r[0] for r in spark.sql("SHOW NAMESPACES IN named").collect()}
    assert {"agg_0", "by_user"} <= names
    assert rows(spark, "named.by_user.default") == rows(spark, "named.agg_0.default")
    assert rows(spark, "(SELECT uid, user_uid FROM named.metadata WHERE operator_id = 0)") == [
        ("agg_0", "by_user")
    ]
    restored = tmp_path / "restored"
    restore_savepoint(spark, str(target), str(restored), uids={"by_user": "orders"})
    attach(spark, str(restored), "renamed")
    assert rows(spark, "renamed.orders.default") == rows(spark, "named.agg_0.default")


def test_restore_moves_and_drops_operators(spark, agg, tmp_path: Path) -> None:
    restored = tmp_path / "moved"
    restore_savepoint(spark, str(agg.checkpoint), str(restored), uids=["agg_0=3"])
    assert sorted(p.name for p in (restored / "state").iterdir()) == ["3"]
    attach(spark, str(restored), "moved")
    attach(spark, str(agg.checkpoint), "orig")
    assert rows(spark, "moved.agg_3.default") == rows(spark, "orig.agg_0.default")
    dropped = tmp_path / "dropped"
    restore_savepoint(spark, str(agg.checkpoint), str(dropped), drop=["agg_0"])
    assert not (dropped / "state").exists()
    assert last_batch(dropped) == 1


@pytest.mark.parametrize("kind", ["agg", "dedup"])
def test_restored_rocksdb_images_record_exact_key_counts(
    spark, checkpoints, tmp_path: Path, kind: str
) -> None:
    """A restore writes RocksDB stores without column families without Spark's look-up of every
    put key; each image still records its partition's exact key count, onto 3 partitions."""
    restored = tmp_path / "restored"
    restore_savepoint(spark, str(checkpoints[(kind, "rocksdb")].checkpoint), str(restored),
                      partitions=3)  # fmt: skip
    version = last_batch(restored) + 1
    recorded = {}
    for image in (restored / "state" / "0").glob(f"*/{version}.zip"):
        _, text = zipfile.ZipFile(image).read("metadata").decode().split("\n", 1)
        recorded[int(image.parent.name)] = json.loads(text)["numKeys"]
    raw = spark.read.format("statestore").load(str(restored))
    counted = {r.partition_id: r["count"] for r in raw.groupBy("partition_id").count().collect()}
    assert recorded == {p: counted.get(p, 0) for p in range(3)}
    assert sum(recorded.values()) > 0


def test_restored_transform_with_state_reads_from_its_new_place(
    spark, checkpoints, tmp_path: Path
) -> None:
    query = checkpoints[("tws", "rocksdb")]
    taken = tmp_path / "taken"
    take_savepoint(spark, str(query.checkpoint), str(taken))
    moved = tmp_path / "elsewhere" / "sp"
    shutil.copytree(taken, moved)
    shutil.rmtree(taken)
    restored = tmp_path / "restored"
    restore_savepoint(spark, str(moved), str(restored), partitions=3)
    attach(spark, str(query.checkpoint), "orig")
    attach(spark, str(restored), "tws_restored")
    for table in ("count", "history", "items", "timers"):
        original = rows(spark, f"orig.tws_0.{table}")
        assert rows(spark, f"tws_restored.tws_0.{table}") == original, table


def test_list_and_dispose(spark, agg, checkpoints, tmp_path: Path) -> None:
    take_savepoint(spark, str(agg.checkpoint), str(tmp_path / "a"))
    take_savepoint(spark, str(checkpoints[("dedup", "hdfs")].checkpoint), str(tmp_path / "b"))
    (tmp_path / "not-a-savepoint").mkdir()
    found = list_savepoints(spark, str(tmp_path))
    assert [Path(i.path).name for i in found] == ["a", "b"]
    assert found[0].operators == "agg_0" and found[0].rows == 3 and found[0].batch_id == 1
    assert found[1].operators == "dedup_0"
    summary = dispose_savepoint(spark, str(tmp_path / "a"))
    assert summary.startswith(f"Disposed of savepoint '{tmp_path / 'a'}': removed")
    assert not (tmp_path / "a").exists()
    assert [Path(i.path).name for i in list_savepoints(spark, str(tmp_path))] == ["b"]
    with pytest.raises(NotASavepoint), savepoint_errors():
        dispose_savepoint(spark, str(agg.checkpoint))


def test_restore_verifies_checksums(spark, agg, tmp_path: Path) -> None:
    target = tmp_path / "sp"
    take_savepoint(spark, str(agg.checkpoint), str(target))
    victim = next((target / "state" / "0" / "1").glob("*.zip"))
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.chmod(0o644)
    victim.write_bytes(bytes(data))
    for crc in target.rglob(f".{victim.name}.crc"):
        crc.unlink()
    with pytest.raises(ChecksumMismatch, match="state/0/1/2.zip"), savepoint_errors():
        restore_savepoint(spark, str(target), str(tmp_path / "restored"))
    assert not (tmp_path / "restored").exists()


def test_refusals_write_nothing(spark, agg, tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_text("x")
    with pytest.raises(TargetNotEmpty), savepoint_errors():
        take_savepoint(spark, str(agg.checkpoint), str(busy))
    assert [p.name for p in busy.iterdir()] == ["x"]
    for uids, message in [
        (["nope=x"], "No operator 'nope'; the operators are agg_0"),
        (["agg_0"], "takes OPERATOR=NEW_ID or OPERATOR=NAME"),
        (["agg_0=9lives"], "cannot be the operator.s new id or name: a name is an ASCII letter"),
    ]:
        with pytest.raises(BadArguments, match=message), savepoint_errors():
            restore_savepoint(spark, str(agg.checkpoint), str(tmp_path / "r"), uids=uids)
        assert not (tmp_path / "r").exists()


def test_sql_procedures_return_typed_rows(spark, agg, tmp_path: Path) -> None:
    """Each procedure is one action with typed result rows: what take wrote (and its manifest),
    what restore and dispose did; savepoint_list lists."""
    attach(spark, str(agg.checkpoint), "proc")
    target = tmp_path / "sps" / "one"
    [row] = spark.sql(f"CALL proc.system.take_savepoint('{target}', uids => '0=by_user')").collect()
    assert (row.path, row.batch_id, row.writable, row.operators, row.rows) == (
        str(target), 1, False, 1, 3
    )  # fmt: skip
    assert row.state_bytes > 0
    assert json.loads(row.manifest)["operators"][0]["user_uid"] == "by_user"
    listed = spark.sql(
        f"SELECT path, batch_id, operators, rows FROM savepoint_list('{target.parent}')"
    )
    assert [tuple(r) for r in listed.collect()] == [
        (f"file:{target}", 1, "agg_0 (by_user)", 3)
    ]  # fmt: skip
    attach(spark, str(target), "proc_sp")
    restored = tmp_path / "restored"
    [row] = spark.sql(
        f"CALL proc_sp.system.restore_savepoint('{restored}', partitions => 2, provider => 'hdfs')"
    ).collect()
    assert row.target == str(restored)
    assert row.message.startswith("Restored batch 1") and "2 partition(s), hdfs" in row.message
    attach(spark, str(restored), "proc_restored")
    assert rows(spark, "proc_restored.by_user.default") == rows(spark, "proc.agg_0.default")
    [row] = spark.sql("CALL proc_sp.system.dispose_savepoint()").collect()
    assert row.message.startswith("Disposed of savepoint") and not target.exists()
    [row] = spark.sql("CALL proc_restored.system.recover()").collect()
    assert row.checkpoint == str(restored) and "nothing to recover" in row.message.lower()
    with pytest.raises(Exception, match="SAVEPOINT_NO_SUCH_PROCEDURE"):
        spark.sql("CALL proc.system.nope()")


def test_python_verbs_call_the_procedures_with_calls_rows(spark, agg, tmp_path: Path) -> None:
    """A classic session's verbs call a procedure without a statement (``procedures.call_rows``
    through the JVM bridge): the same columns, values and types as ``CALL``; arguments of another
    type, unknown or missing ones are refused in one line, before anything is written."""
    from spark_savepoint.sql_ext import procedures

    folder = str(agg.checkpoint)
    direct = procedures.call_rows(spark, folder, "list_files")
    attach(spark, folder, "proc_direct")
    stated = spark.sql("CALL proc_direct.system.list_files()").collect()
    assert [r.asDict() for r in direct] == [r.asDict() for r in stated] and len(direct) > 5
    assert {type(v) for r in direct for v in r} == {str, int}
    [row] = procedures.call_rows(spark, folder, "take_savepoint", target=str(tmp_path / "sp"))
    assert (row.batch_id, row.writable, row.operators, row.rows) == (1, False, 1, 3)  # defaults
    refused = {
        "takes a BIGINT as batch_id": {"target": str(tmp_path / "b"), "batch_id": "1"},
        "takes a STRING as target": {"target": 7},
        "has no parameter targte": {"targte": str(tmp_path / "c")},
        "needs the argument target": {},
    }
    for message, arguments in refused.items():
        with pytest.raises(BadArguments, match=message):
            procedures.call_rows(spark, folder, "take_savepoint", **arguments)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sp"]


@pytest.mark.slow
def test_cli_take_list_restore_dispose(spark, agg, tmp_path: Path, capsys) -> None:
    from spark_savepoint.sql_ext.cli import main

    target = tmp_path / "sps" / "cli"
    assert main(["savepoint", "take", str(agg.checkpoint), str(target), "--uid", "0=by_user"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"Took savepoint '{target}' of batch 1 of '{agg.checkpoint}': ")
    assert "agg_0 (by_user) 3 rows" in out
    assert "Traceback" not in err  # progress (tests/integration/test_progress.py) only
    assert main(["savepoint", "list", str(target.parent)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["path", "batch", "taken", "at", "operators", "rows", "size"]
    assert f"file:{target}" in table[1] and "agg_0 (by_user)" in table[1]
    restored = tmp_path / "restored"
    argv = ["savepoint", "restore", str(target), str(restored), "--partitions", "3"]
    assert main(argv) == 0
    assert "3 partition(s)" in capsys.readouterr().out
    assert main(["savepoint", "restore", str(target), str(tmp_path / "x"), "--uid", "zz=1"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("spark-savepoint: [SAVEPOINT_BAD_ARGUMENTS]")
    assert main(["savepoint", "dispose", str(target)]) == 0
    assert "Disposed of savepoint" in capsys.readouterr().out and not target.exists()
