"""``relocate``: a checkpoint with a file source and a file sink moved from the local disk to a
real HDFS (MiniDFSCluster) and back, the sink's folder with it; the query restarted at each new
place continues without reprocessing anything (the sink's output holds every event once), and
the doctor finds each place healthy. A moved transformWithState checkpoint gets its schema
paths re-pointed. Bad input changes nothing."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from spark_savepoint import SavepointError, attach, relocate, verify
from spark_savepoint.sql_ext.cli import main
from tests.compat.golden import goldens
from tests.support.checkpoint_files import snapshot
from tests.support.damage import damage_of
from tests.support.hdfs import Hdfs, start_hdfs
from tests.support.remote_fs import files, read_text
from tests.support.streaming_queries import EVENTS_SCHEMA, wait_for_listeners, write_file

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hdfs() -> Iterator[Hdfs]:
    with start_hdfs() as cluster:
        yield cluster


def run(spark: SparkSession, events: Path, checkpoint: str, output: str) -> None:
    """The query: distinct events by id, appended as JSON files to ``output`` (a file sink)."""
    query = (
        spark.readStream.schema(EVENTS_SCHEMA).option("maxFilesPerTrigger", 1).json(str(events))
        .dropDuplicates(["event_id"])
        .writeStream.format("json").option("path", output)
        .option("checkpointLocation", checkpoint).trigger(availableNow=True).start()
    )  # fmt: skip
    query.awaitTermination()
    assert query.exception() is None, query.exception()
    wait_for_listeners(spark)  # the run's stop is recorded: a relocation may go ahead


def event_ids(spark: SparkSession, output: str) -> list[int]:
    """The ids the sink holds, as its log lists its files (a sorted list, repeats kept)."""
    return sorted(r.event_id for r in spark.read.json(output).select("event_id").collect())


def events(folder: Path, ids: range) -> None:
    write_file(folder, [{"event_id": i, "user": f"u{i % 3}", "item": "x", "amount": i,
                         "ts": "2026-11-27T10:00:00"} for i in ids])  # fmt: skip


def test_to_hdfs_and_back_with_a_file_source_and_sink(spark, hdfs: Hdfs, tmp_path: Path):
    inputs, local_ckpt, local_out = tmp_path / "in", tmp_path / "ckpt", tmp_path / "out"
    events(inputs, range(4))
    events(inputs, range(2, 6))  # ids 2 and 3 again: dropped
    run(spark, inputs, str(local_ckpt), str(local_out))
    assert event_ids(spark, str(local_out)) == list(range(6))

    # local -> HDFS, moved, the sink's folder with it
    remote_ckpt, remote_out = f"{hdfs.uri}/moved/ckpt", f"{hdfs.uri}/moved/out"
    said = relocate(spark, str(local_ckpt), remote_ckpt, move=True,
                    sink_paths={str(local_out): remote_out})  # fmt: skip
    assert said.startswith(f"moved '{local_ckpt}' to '{remote_ckpt}'"), said
    assert said.endswith("the doctor finds no error there."), said
    assert not local_ckpt.exists() and not local_out.exists()
    assert damage_of(verify(spark, remote_ckpt).findings) == ()
    assert {"metadata", "offsets/1", "commits/1"} <= set(files(spark, remote_ckpt))
    sink_log = [f for f in files(spark, remote_out) if f.startswith("_spark_metadata/")]
    logged = "".join(read_text(spark, f"{remote_out}/{f}") for f in sink_log)
    assert sink_log and "file:" not in logged and f'"path":"{remote_out}/part-' in logged

    # the query continues there: only the new events
    events(inputs, range(5, 8))
    run(spark, inputs, remote_ckpt, remote_out)
    assert event_ids(spark, remote_out) == list(range(8))

    # and back, copied this time (the HDFS copy stays whole)
    back_ckpt, back_out = tmp_path / "back" / "ckpt", tmp_path / "back" / "out"
    assert main(["relocate", remote_ckpt, str(back_ckpt),
                 "--sink-path", f"{remote_out}={back_out}"]) == 0  # fmt: skip
    assert damage_of(verify(spark, remote_ckpt).findings) == ()
    assert damage_of(verify(spark, str(back_ckpt)).findings) == ()
    events(inputs, range(7, 10))
    run(spark, inputs, str(back_ckpt), str(back_out))
    assert event_ids(spark, str(back_out)) == list(range(10))
    assert event_ids(spark, remote_out) == list(range(8))  # the copy left it as it was
    query_id = json.loads((back_ckpt / "metadata").read_text().splitlines()[0])["id"]
    assert query_id == json.loads(read_text(spark, f"{remote_ckpt}/metadata"))["id"]


def test_a_moved_transform_with_state_checkpoint_gets_its_schema_paths(spark, tmp_path: Path):
    """The 4.3.0 golden's operator metadata names schema files under the folder it was written
    in, long gone; relocated, it names the new folder's, and reads."""
    golden = next(g for g in goldens("4.3.0") if g.case == "tws-rocksdb")
    source = tmp_path / "golden"
    shutil.copytree(golden.folder / "checkpoint", source)
    target = tmp_path / "relocated"
    relocate(spark, str(source), str(target), force=True)
    (entry,) = [p for p in (target / "state/0/_metadata/v2").iterdir() if p.name.isdigit()]
    (store,) = json.loads(entry.read_text().splitlines()[1])["stateStoreInfo"]
    assert all(p.startswith(f"file:{target}/state/0/_stateSchema/")
               for p in store["stateSchemaFilePaths"])  # fmt: skip
    assert damage_of(verify(spark, str(target)).findings) == ()
    attach(spark, str(target), "relocated_tws")
    assert spark.table("relocated_tws.tws_0.count").count() > 0


def test_bad_input_changes_nothing(spark, checkpoints, tmp_path: Path):
    source = checkpoints[("agg", "hdfs")].checkpoint
    before = snapshot(source)
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "x").write_text("x")
    with pytest.raises(SavepointError, match="SAVEPOINT_TARGET_NOT_EMPTY"):
        relocate(spark, str(source), str(taken), force=True)
    with pytest.raises(SavepointError, match="SAVEPOINT_NO_SINK_LOG"):
        relocate(spark, str(source), str(tmp_path / "new"), force=True,
                 sink_paths={str(tmp_path): str(tmp_path / "out")})  # fmt: skip
    with pytest.raises(SavepointError, match="SAVEPOINT_BAD_ARGUMENTS"):
        relocate(spark, str(source), str(tmp_path / "new"), force=True, source_paths={"": "x"})
    assert not (tmp_path / "new").exists() and not (tmp_path / "out").exists()
    assert (taken / "x").read_text() == "x" and snapshot(source) == before
