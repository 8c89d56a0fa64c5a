"""``repair``: each damage the doctor names and repair fixes, on a real checkpoint of three
batches (state versions 1..3), then the decisive test: the real query restarts on the repaired
checkpoint and ends where an undamaged twin of it ends, fed the same new input. ``--undo`` puts
the damaged checkpoint back byte for byte; a healthy checkpoint is left as it is.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from spark_savepoint import SavepointError, attach, repair, undo_repair, verify
from spark_savepoint.sql_ext.cli import main
from tests.support.checkpoint_files import snapshot
from tests.support.damage import damage_of, lose, three_batches, truncate, without_checksum
from tests.support.streaming_queries import restart_rows


def final_state(spark, checkpoint: Path, catalog: str) -> list[tuple]:
    attach(spark, str(checkpoint), catalog)
    return sorted(tuple(r) for r in spark.table(f"{catalog}.agg_0.default").collect())


def last_emitted(rows: list[dict]) -> dict[str, tuple]:
    """Each user's last emitted (cnt, total): where the query's output ends."""
    return {r["user"]: (r["cnt"], r["total"]) for r in rows}


@pytest.mark.slow
def test_a_schema_file_removed_by_hand_is_written_again_by_the_restart(spark, tmp_path):
    """``rm`` of a schema file leaves its checksum file, on which the restart's write of the
    schema fails; the repair removes it, and the restarted query writes the schema anew."""
    query = three_batches(spark, "agg", "hdfs", tmp_path / "query")
    schema = query.checkpoint / "state/0/0/_metadata/schema"
    schema.unlink()
    done = repair(spark, str(query.checkpoint), force=True)
    assert [(s.action, s.file) for s in done.steps] == [
        ("remove", "state/0/0/_metadata/.schema.crc")]  # fmt: skip
    assert [s.file for s in done.by_hand] == ["state/0/0/_metadata/schema"]
    query.add_input(restart_rows("agg"))
    assert query.run(spark)
    assert schema.exists() and damage_of(verify(spark, str(query.checkpoint)).findings) == ()


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
    query_id = (checkpoint / "metadata").read_text()
    lose(checkpoint / "metadata")
    (checkpoint / "_savepoint-tx-dead").mkdir()  # a killed edit's: for `recover`
    before = snapshot(checkpoint)

    planned = repair(spark, str(checkpoint), dry_run=True)
    assert snapshot(checkpoint) == before
    assert [(s.action, s.file) for s in planned.steps][:2] == [
        ("remove", "commits/1"), ("remove", "offsets/1")]  # fmt: skip
    (write,) = [s for s in planned.steps if s.action == "write"]
    assert write.file == "metadata" and "the query id its last run recorded" in write.why
    assert [s.file for s in planned.by_hand] == ["_savepoint-tx-dead"]
    assert planned.summary.endswith("(dry run: nothing was changed)")

    assert main(["repair", str(checkpoint), "--force"]) == 1  # the edit's leftover: a warning
    out = capsys.readouterr().out
    assert "remove            commits/1" in out and "by hand           _savepoint-tx-dead" in out
    assert re.search(r"kept in _savepoint/repairs/\d{17}-\w{8} \(undo: repair --undo\)", out)
    assert (checkpoint / "metadata").read_text() == query_id
    assert main(["repair", str(checkpoint), "--undo", "--force"]) == 0
    assert snapshot(checkpoint) == before  # the written metadata file gone again
    with pytest.raises(SavepointError, match=r"SAVEPOINT_REPAIR_REFUSED.*has none"):
        undo_repair(spark, str(checkpoint), force=True)

    unfinished = checkpoint / "_savepoint/repairs/20260101000000000-deadbeef"
    unfinished.mkdir(parents=True)
    (unfinished / "plan.json").write_text('{"kept": [], "repairs_folder_existed": false}')
    warnings = [f.check for f in verify(spark, str(checkpoint)).findings if f.severity == "warning"]
    assert warnings == ["EDIT_LEFTOVER", "REPAIR_UNFINISHED"]
    with pytest.raises(SavepointError, match=r"SAVEPOINT_REPAIR_REFUSED.*did not finish"):
        repair(spark, str(checkpoint), force=True)
    undo_repair(spark, str(checkpoint), force=True)
    assert not (checkpoint / "_savepoint/repairs").exists()


@pytest.mark.slow
def test_to_batch_rolls_back_a_healthy_checkpoint(spark, tmp_path):
    query = three_batches(spark, "agg", "hdfs", tmp_path / "query")
    twin, rolled = tmp_path / "twin", tmp_path / "rolled"
    shutil.copytree(query.checkpoint, twin)
    shutil.copytree(query.checkpoint, rolled)
    done = repair(spark, str(rolled), to_batch=0, force=True)
    assert "roll back from batch 2 to batch 0" in done.summary
    assert sorted(p.name for p in (rolled / "commits").iterdir() if p.name.isdigit()) == ["0"]
    query.add_input(restart_rows("agg"))
    query.with_checkpoint(twin).run(spark)
    query.with_checkpoint(rolled).run(spark)
    assert final_state(spark, rolled, "rolled") == final_state(spark, twin, "rolled_twin")
    with pytest.raises(SavepointError, match="SAVEPOINT_NO_SUCH_BATCH"):
        repair(spark, str(rolled), to_batch=7, force=True)


@pytest.mark.slow
def test_a_checkpoint_without_checksums_is_repaired_from_a_deep_finding(spark, tmp_path):
    """Where no checksum file is (HDFS, S3), the file checks pass a cut delta; restarting would
    fail. A repair to the batch before it, named by ``--to-batch``, and the query runs on."""
    query = three_batches(spark, "agg", "hdfs", tmp_path / "query")
    damaged = tmp_path / "damaged"
    shutil.copytree(query.checkpoint, damaged)
    truncate(without_checksum(damaged / "state/0/1/3.delta"))
    assert [f.check for f in damage_of(verify(spark, str(damaged), deep=True).findings)] == [
        "STATE_UNLOADABLE"]  # fmt: skip
    repair(spark, str(damaged), to_batch=1, force=True)
    assert damage_of(verify(spark, str(damaged), deep=True).findings) == ()
    query.add_input(restart_rows("agg"))
    assert query.with_checkpoint(damaged).run(spark)


@pytest.mark.slow
def test_the_command_line_writes_a_lost_schema_file_from_the_query(spark, tmp_path, capsys):
    """``repair --query path/to/module.py:function``: the lost schema file is written as the
    query's plan writes it, byte for byte the file Spark wrote."""
    query = three_batches(spark, "agg", "hdfs", tmp_path / "query")
    schema = query.checkpoint / "state/0/0/_metadata/schema"
    written_by_spark = schema.read_bytes()
    lose(schema)
    module = tmp_path / "orders_job.py"
    module.write_text(
        "from pathlib import Path\n\nfrom tests.support.streaming_queries import query_for\n\n\n"
        f"def build(spark):\n    return query_for('agg')(spark, Path({str(query.input_dir)!r}))\n"
    )
    args = ["repair", str(query.checkpoint), "--query", f"{module}:build", "--output-mode",
            "update", "--force"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "write             state/0/0/_metadata/schema" in out
    assert schema.read_bytes() == written_by_spark
