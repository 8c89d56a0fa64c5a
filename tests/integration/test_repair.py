"""``repair``: each damage the doctor names and repair fixes, on a real checkpoint of three
batches (state versions 1..3), then the decisive test: the real query restarts on the repaired
checkpoint and ends where an undamaged twin of it ends, fed the same new input. ``--undo`` puts
the damaged checkpoint back byte for byte; a healthy checkpoint is left as it is.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from spark_savepoint import SavepointError, attach, repair, undo_repair, verify
from spark_savepoint.sql_ext.cli import main
from tests.support.checkpoint_files import snapshot
from tests.support.damage import hand_edit, last_change_file, lose, only, truncate, without_checksum
from tests.support.streaming_queries import CASES, StreamingQuery, build, restart_rows

CHANGELOG_OFF = {"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "false"}
FORMAT_2 = {"spark.sql.streaming.stateStore.checkpointFormatVersion": "2"}


def three_batches(spark, root: Path, provider: str, confs: dict[str, str]) -> StreamingQuery:
    query = build(spark, "agg", provider, root, confs=confs)
    query.add_input(restart_rows("agg"))
    query.run(spark)
    return query


def at(query: StreamingQuery, folder: Path) -> StreamingQuery:
    """The same query (same input folder) with its checkpoint at ``folder``."""
    return StreamingQuery(query.kind, query.provider, query.root, dict(query.confs),
                          location=str(folder))  # fmt: skip


def final_state(spark, checkpoint: Path, catalog: str) -> list[tuple]:
    attach(spark, str(checkpoint), catalog)
    return sorted(tuple(r) for r in spark.table(f"{catalog}.agg_0.default").collect())


def last_emitted(rows: list[dict]) -> dict[str, tuple]:
    """Each user's last emitted (cnt, total): where the query's output ends."""
    return {r["user"]: (r["cnt"], r["total"]) for r in rows}


RESTARTS: dict[str, tuple[str, dict[str, str], Callable[[Path], object], str]] = {
    "a delta gone (hdfs)": (
        "hdfs", {}, lambda c: lose(c / "state/0/1/3.delta"),
        "roll back from batch 2 to batch 1"),
    "a changelog cut short (rocksdb)": (
        "rocksdb", {}, lambda c: truncate(c / "state/0/1/3.changelog"),
        "roll back from batch 2 to batch 1"),
    "an SST file gone (rocksdb, a zip per version)": (
        "rocksdb", CHANGELOG_OFF,
        lambda c: lose(sorted((c / "state/0").glob("*/SSTs/*.sst"))[-1]),
        "roll back from batch 2 to batch"),
    "a changelog gone (checkpoint format 2)": (
        "rocksdb", FORMAT_2, lambda c: lose(only(c / "state/0/1", "3_*.changelog")),
        "roll back from batch 2 to batch 1"),
    "a log edited by hand": (
        "hdfs", {}, lambda c: hand_edit(c / "offsets/2", '"batchWatermarkMs":0',
                                        '"batchWatermarkMs":0 '),
        "1 checksum(s) rewritten"),
}  # fmt: skip
"""Damage -> (provider, settings, what is done to the checkpoint, what the summary says)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", RESTARTS)
def test_the_query_restarts_on_the_repaired_checkpoint(spark, tmp_path, name):
    provider, confs, damage, said = RESTARTS[name]
    query = three_batches(spark, tmp_path / "query", provider, confs)
    twin, damaged = tmp_path / "twin", tmp_path / "damaged"
    shutil.copytree(query.checkpoint, twin)
    shutil.copytree(query.checkpoint, damaged)
    damage(damaged)
    before = snapshot(damaged)
    assert verify(spark, str(damaged)).exit_code > 0

    done = repair(spark, str(damaged), force=True)
    assert said in done.summary and done.changed, done
    assert verify(spark, str(damaged)).findings == ()
    undo_repair(spark, str(damaged), force=True)
    assert snapshot(damaged) == before  # byte for byte, backup gone
    repair(spark, str(damaged), force=True)

    query.add_input(restart_rows("agg"))
    expected = last_emitted(at(query, twin).run(spark))
    assert last_emitted(at(query, damaged).run(spark)).items() >= expected.items()
    assert final_state(spark, damaged, "repaired") == final_state(spark, twin, "twin")


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "provider"), CASES)
def test_every_kind_is_rolled_back_past_a_missing_change(spark, checkpoints, tmp_path, kind,
                                                         provider):  # fmt: skip
    """Every operator kind on both providers, a partition's last change file gone (a join's:
    of one of its stores): rolled back to batch 0, healthy; undone, as it was."""
    checkpoint = tmp_path / "ckpt"
    shutil.copytree(checkpoints[(kind, provider)].checkpoint, checkpoint)
    partition = checkpoint / "state/0/1"
    if kind == "join":
        partition = partition / "left-keyWithIndexToValue"
    version = last_change_file(partition).name.split(".")[0]
    for file in partition.glob(f"{version}.*"):
        lose(file)
    before = snapshot(checkpoint)
    done = repair(spark, str(checkpoint), force=True)
    assert "roll back from batch 1 to batch 0" in done.summary, done.summary
    assert verify(spark, str(checkpoint)).findings == ()
    undo_repair(spark, str(checkpoint), force=True)
    assert snapshot(checkpoint) == before


@pytest.mark.slow
def test_a_schema_file_removed_by_hand_is_written_again_by_the_restart(spark, tmp_path):
    """``rm`` of a schema file leaves its checksum file, on which the restart's write of the
    schema fails; the repair removes it, and the restarted query writes the schema anew."""
    query = three_batches(spark, tmp_path / "query", "hdfs", {})
    schema = query.checkpoint / "state/0/0/_metadata/schema"
    schema.unlink()
    done = repair(spark, str(query.checkpoint), force=True)
    assert [(s.action, s.file) for s in done.steps] == [
        ("remove", "state/0/0/_metadata/.schema.crc")]  # fmt: skip
    assert [s.file for s in done.by_hand] == ["state/0/0/_metadata/schema"]
    query.add_input(restart_rows("agg"))
    assert query.run(spark)
    assert schema.exists() and verify(spark, str(query.checkpoint)).findings == ()


def test_a_healthy_checkpoint_is_left_as_it_is(spark, checkpoints, tmp_path):
    checkpoint = tmp_path / "healthy"
    shutil.copytree(checkpoints[("agg", "rocksdb")].checkpoint, checkpoint)
    before = snapshot(checkpoint)
    done = repair(spark, str(checkpoint), force=True)
    assert (done.steps, done.by_hand, done.changed) == ((), (), False)
    assert done.summary == f"{checkpoint}: nothing to repair"
    assert snapshot(checkpoint) == before


def test_dry_run_undo_and_refusals(spark, checkpoints, tmp_path, capsys):
    checkpoint = tmp_path / "ckpt"
    shutil.copytree(checkpoints[("agg", "hdfs")].checkpoint, checkpoint)
    lose(checkpoint / "state/0/1/2.delta")
    lose(checkpoint / "metadata")
    before = snapshot(checkpoint)

    planned = repair(spark, str(checkpoint), dry_run=True)
    assert snapshot(checkpoint) == before
    assert [(s.action, s.file) for s in planned.steps][:2] == [
        ("remove", "commits/1"), ("remove", "offsets/1")]  # fmt: skip
    assert [s.file for s in planned.by_hand] == ["metadata"]  # a repair cannot invent a query id
    assert planned.summary.endswith("(dry run: nothing was changed)")

    assert main(["repair", str(checkpoint), "--force"]) == 2  # the metadata file is still gone
    out = capsys.readouterr().out
    assert "remove            commits/1" in out and "by hand           metadata" in out
    assert re.search(r"kept in _savepoint/repairs/\d{17}-\w{8} \(undo: repair --undo\)", out)
    assert main(["repair", str(checkpoint), "--undo", "--force"]) == 0
    assert snapshot(checkpoint) == before
    with pytest.raises(SavepointError, match=r"SAVEPOINT_REPAIR_REFUSED.*has none"):
        undo_repair(spark, str(checkpoint), force=True)

    unfinished = checkpoint / "_savepoint/repairs/20260101000000000-deadbeef"
    unfinished.mkdir(parents=True)
    (unfinished / "plan.json").write_text('{"kept": [], "repairs_folder_existed": false}')
    assert [f.check for f in verify(spark, str(checkpoint)).findings if f.severity == "warning"] \
        == ["REPAIR_UNFINISHED"]  # fmt: skip
    with pytest.raises(SavepointError, match=r"SAVEPOINT_REPAIR_REFUSED.*did not finish"):
        repair(spark, str(checkpoint), force=True)
    undo_repair(spark, str(checkpoint), force=True)
    assert not (checkpoint / "_savepoint/repairs").exists()


@pytest.mark.slow
def test_to_batch_rolls_back_a_healthy_checkpoint(spark, tmp_path):
    query = three_batches(spark, tmp_path / "query", "hdfs", {})
    twin, rolled = tmp_path / "twin", tmp_path / "rolled"
    shutil.copytree(query.checkpoint, twin)
    shutil.copytree(query.checkpoint, rolled)
    done = repair(spark, str(rolled), to_batch=0, force=True)
    assert "roll back from batch 2 to batch 0" in done.summary
    assert sorted(p.name for p in (rolled / "commits").iterdir() if p.name.isdigit()) == ["0"]
    query.add_input(restart_rows("agg"))
    at(query, twin).run(spark)
    at(query, rolled).run(spark)
    assert final_state(spark, rolled, "rolled") == final_state(spark, twin, "rolled_twin")
    with pytest.raises(SavepointError, match="SAVEPOINT_NO_SUCH_BATCH"):
        repair(spark, str(rolled), to_batch=7, force=True)


@pytest.mark.slow
def test_a_checkpoint_without_checksums_is_repaired_from_a_deep_finding(spark, tmp_path):
    """Where no checksum file is (HDFS, S3), the file checks pass a cut delta; restarting would
    fail. A repair to the batch before it, named by ``--to-batch``, and the query runs on."""
    query = three_batches(spark, tmp_path / "query", "hdfs", {})
    damaged = tmp_path / "damaged"
    shutil.copytree(query.checkpoint, damaged)
    truncate(without_checksum(damaged / "state/0/1/3.delta"))
    assert [f.check for f in verify(spark, str(damaged), deep=True).findings] == [
        "STATE_UNLOADABLE"]  # fmt: skip
    repair(spark, str(damaged), to_batch=1, force=True)
    assert verify(spark, str(damaged), deep=True).findings == ()
    query.add_input(restart_rows("agg"))
    assert at(query, damaged).run(spark)
