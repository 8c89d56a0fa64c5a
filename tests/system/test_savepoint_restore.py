"""Savepoints end to end, for every operator kind: take a savepoint, delete the checkpoint,
restore it (as is from a copied savepoint, with more partitions, with fewer partitions and the
other provider, and back to the first provider through a savepoint of the restored checkpoint),
and restart the real streaming query on the same input every time: it must emit exactly what
the original query emitted when it continued from its own checkpoint."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from spark_savepoint import restore_savepoint, savepoint_errors, take_savepoint
from spark_savepoint.catalog.errors import RestoreUnsupported
from tests.support.streaming_queries import (
    KINDS,
    PROVIDER_CONF,
    PROVIDERS,
    RUN_CONFS,
    StreamingQuery,
    build,
    session_confs,
    write_file,
)

pytestmark = pytest.mark.slow

OTHER = {"hdfs": "rocksdb", "rocksdb": "hdfs"}

CASES = [
    ("agg", "hdfs"),
    ("window_agg", "rocksdb"),
    ("dedup", "hdfs"),
    ("join", "rocksdb"),
    ("pandas_state", "hdfs"),
    ("tws", "rocksdb"),
]
"""Each kind once, built on one provider; the restores switch to the other and back."""


def _forget_restart(query: StreamingQuery) -> None:
    """Back to before the restart wave: remove the checkpoint and the wave's input files (the
    newest file of each input folder). Nothing when the checkpoint is already gone."""
    if not query.checkpoint.exists():
        return
    shutil.rmtree(query.checkpoint)
    sides = [query.input_dir / side for side in ("left", "right")]
    for folder in [side for side in sides if side.exists()] or [query.input_dir]:
        sorted(folder.glob("part-*.json"))[-1].unlink()


@pytest.fixture(scope="module", params=CASES, ids=lambda case: f"{case[0]}-{case[1]}")
def case(request, spark, tmp_path_factory):
    """A fresh query of the kind, its savepoint (taken, then copied elsewhere: the original
    folder is removed), and the rows the original query emits when it continues."""
    kind, provider = request.param
    root = tmp_path_factory.mktemp(f"sp-{kind}-{provider}")
    query = build(spark, kind, provider, root / "query")
    taken = root / "taken"
    manifest = take_savepoint(spark, str(query.checkpoint), str(taken))
    savepoint = root / "copied" / "savepoint"
    shutil.copytree(taken, savepoint)
    shutil.rmtree(taken)
    expected = query.restart(spark)
    assert expected, "the restart wave must produce rows"
    return query, savepoint, manifest, expected


def _restore_and_restart(spark, query, savepoint, **changes) -> list[dict]:
    _forget_restart(query)
    with savepoint_errors():
        restore_savepoint(spark, str(savepoint), str(query.checkpoint), **changes)
    return query.restart(spark)


def test_restored_as_is_from_a_copied_savepoint(spark, case):
    query, savepoint, manifest, expected = case
    assert manifest["batch_id"] == 1
    assert _restore_and_restart(spark, query, savepoint) == expected


def test_restored_with_more_partitions(spark, case):
    query, savepoint, _, expected = case
    assert _restore_and_restart(spark, query, savepoint, partitions=8) == expected
    assert _partitions(query.checkpoint) == 8


def test_restored_with_fewer_partitions_and_the_other_provider(spark, case):
    query, savepoint, _, expected = case
    other = OTHER[query.provider]
    if query.kind == "tws":
        _forget_restart(query)
        with pytest.raises(RestoreUnsupported, match="only RocksDB has"), savepoint_errors():
            restore_savepoint(spark, str(savepoint), str(query.checkpoint), provider=other)
        assert not query.checkpoint.exists()
        assert _restore_and_restart(spark, query, savepoint, partitions=2) == expected
        return
    assert _restore_and_restart(spark, query, savepoint, partitions=2, provider=other) == expected
    assert _partitions(query.checkpoint) == 2
    assert _provider_files(query.checkpoint) == other


def test_restored_back_to_the_first_provider_through_a_second_savepoint(
    spark, case, tmp_path: Path
):
    query, savepoint, _, expected = case
    if query.kind == "tws":
        pytest.skip("transformWithState has one provider (RocksDB)")
    other = OTHER[query.provider]
    middle = tmp_path / "middle"
    restore_savepoint(spark, str(savepoint), str(middle), partitions=3, provider=other)
    second = tmp_path / "second"
    take_savepoint(spark, str(middle), str(second))
    got = _restore_and_restart(spark, query, second, partitions=4, provider=query.provider)
    assert got == expected
    assert _provider_files(query.checkpoint) == query.provider


def _partitions(checkpoint: Path) -> int:
    return len([p for p in (checkpoint / "state" / "0").iterdir() if p.name.isdigit()])


def _provider_files(checkpoint: Path) -> str:
    """Which provider wrote the restored state: RocksDB zips or HDFS-backed snapshots."""
    names = {f.suffix for f in (checkpoint / "state" / "0").rglob("*") if f.is_file()}
    return "rocksdb" if ".zip" in names else "hdfs"


CHANGELOG_OFF = {"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "false"}


@pytest.mark.parametrize(
    ("provider", "images"),
    [("rocksdb", {"2.zip"}), ("hdfs", {"1.delta"})],
    ids=["rocksdb-zip", "hdfs-first-delta"],
)
def test_full_images_are_copied_byte_for_byte(spark, tmp_path: Path, provider, images):
    """Where the batch's version already is one full image (a RocksDB zip, written when
    changelog checkpointing is off; an HDFS-backed store's first delta), take copies its files
    as they are (asked to, it counts the rows of the delta as Spark's reader reads them), and the
    restored query continues from them."""
    # RocksDB: two batches (version 2 is a zip); HDFS-backed: one batch (its state is 1.delta)
    rows = None if provider == "rocksdb" else [r for wave in KINDS["agg"].initial for r in wave]
    query = build(spark, "agg", provider, tmp_path / "query", rows=rows, confs=CHANGELOG_OFF)
    taken = tmp_path / "taken"
    manifest = take_savepoint(spark, str(query.checkpoint), str(taken), count_rows=True)
    source = _state_files(query.checkpoint)
    copied = _state_files(taken)
    assert {Path(name).name for name in copied if name.count("/") == 1} == images
    assert copied == {name: source[name] for name in copied}  # same names, same bytes
    assert manifest["rows"] == 3
    expected = query.restart(spark)
    assert expected, "the restart wave must produce rows"
    _forget_restart(query)
    assert _restore_and_restart(spark, query, taken) == expected


def _state_files(checkpoint: Path) -> dict[str, str]:
    """The state data files of operator 0 (``<partition>/<file>``, SSTs too): their SHA-256."""
    folder = checkpoint / "state" / "0"
    return {
        str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in folder.rglob("*")
        if f.is_file() and "_metadata" not in f.parts and not f.name.endswith(".crc")
    }


RUNNING_FILES = 12
"""Input files of the running query: one micro-batch each (``maxFilesPerTrigger`` 1)."""


def _paced_counts(spark, input_dir: Path, checkpoint: Path, emitted: dict[int, list]):
    """Counts per user over ``input_dir``, one file per micro-batch, so that batches are the
    same in every run; each batch's output goes to ``emitted[batch_id]``."""

    def collect(batch, batch_id: int) -> None:
        emitted[batch_id] = sorted(tuple(row) for row in batch.collect())

    events = (
        spark.readStream.schema("user string, amount long")
        .option("maxFilesPerTrigger", 1)
        .json(str(input_dir))
    )
    return (
        events.groupBy("user")
        .agg(F.count("*").alias("n"), F.sum("amount").alias("total"))
        .writeStream.outputMode("update")
        .foreachBatch(collect)
        .option("checkpointLocation", str(checkpoint))
    )


def test_take_while_the_query_runs(spark, tmp_path: Path):
    """A savepoint taken while the query commits batches holds one committed batch: restored,
    the query continues after that batch and emits what the running query emitted there."""
    input_dir = tmp_path / "input"
    for i in range(RUNNING_FILES):
        write_file(input_dir, [{"user": f"u{i % 3}", "amount": i}, {"user": f"v{i}", "amount": 1}])
    emitted: dict[int, list] = {}
    with session_confs(spark, {**RUN_CONFS, PROVIDER_CONF: PROVIDERS["rocksdb"]}):
        running = _paced_counts(spark, input_dir, tmp_path / "checkpoint", emitted).start()
        try:
            while not (tmp_path / "checkpoint" / "commits" / "1").exists():
                running.awaitTermination(0.05)
            manifest = take_savepoint(spark, str(tmp_path / "checkpoint"), str(tmp_path / "sp"))
            still_running = len(emitted) < RUNNING_FILES
            running.processAllAvailable()
        finally:
            running.stop()
        assert still_running, "the query finished before the savepoint was taken"
        taken = manifest["batch_id"]
        assert 1 <= taken < RUNNING_FILES - 1
        restore_savepoint(spark, str(tmp_path / "sp"), str(tmp_path / "restored"))
        resumed: dict[int, list] = {}
        query = _paced_counts(spark, input_dir, tmp_path / "restored", resumed)
        query.trigger(availableNow=True).start().awaitTermination()
    assert sorted(resumed) == list(range(taken + 1, RUNNING_FILES))
    assert resumed == {b: rows for b, rows in emitted.items() if b > taken}
