"""The checkpoint doctor's verification: each kind of damage, made by hand on a copy of a real
checkpoint, is named exactly (class, severity, file, partition) and nothing else is; a healthy
checkpoint of every operator kind on both providers gets no finding; nothing is changed.

The damages are made on checkpoints of three batches (0..2, state versions 1..3) of the
aggregation on each provider and checkpoint format: HDFS-backed, RocksDB with changelog
checkpointing, RocksDB writing a snapshot zip per version, and RocksDB of checkpoint format 2.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from spark_savepoint import attach, verify
from spark_savepoint.sql_ext.cli import main
from spark_savepoint.sql_ext.doctor import UNLOADABLE
from tests.compat.golden import goldens
from tests.support import REPO_ROOT
from tests.support.checkpoint_files import snapshot
from tests.support.damage import (
    LAYOUTS,
    Bases,
    damage_of,
    hand_edit,
    lose,
    only,
    ssts_named_by,
    truncate,
    without_checksum,
)
from tests.support.streaming_queries import (
    session_confs,
)

Expected = tuple[str, str, str | None]
"""(class, severity, file) of one finding."""


@pytest.fixture(scope="module")
def base_queries(spark, tmp_path_factory: pytest.TempPathFactory) -> Bases:
    return Bases(spark, tmp_path_factory.mktemp("doctor"))


class BaseCheckpoints:
    """Base name -> its checkpoint folder (the query built when first asked for)."""

    def __init__(self, queries: Bases) -> None:
        self.queries = queries

    def __getitem__(self, name: str) -> Path:
        return self.queries[("agg", name)].checkpoint


@pytest.fixture(scope="module")
def bases(base_queries: Bases) -> BaseCheckpoints:
    return BaseCheckpoints(base_queries)


def damaged(base: Path, tmp_path: Path, damage: Callable[[Path], object]) -> Path:
    """A copy of checkpoint ``base`` with ``damage`` done to it."""
    copy = tmp_path / "checkpoint"
    shutil.copytree(base, copy)
    damage(copy)
    return copy


def found(spark, checkpoint: Path, deep: bool = False) -> list[Expected]:
    """What ``verify`` finds, as (class, severity, file), and that it changed nothing."""
    before = snapshot(checkpoint)
    findings = damage_of(verify(spark, str(checkpoint), deep=deep).findings)
    assert snapshot(checkpoint) == before
    return [(f.check, f.severity, f.file) for f in findings]


def remove_version(checkpoint: Path, version: int) -> None:
    """Every state file of ``version`` (all partitions), with their checksum files."""
    for file in (checkpoint / "state").rglob(f"*{version}*"):
        kinds = "delta|snapshot|zip|changelog"
        if re.fullmatch(rf"\.?{version}(_[\w-]+)?\.({kinds})(\.crc)*", file.name):
            file.unlink()


def zip_with_sst(checkpoint: Path, version: int) -> Path:
    """A partition's snapshot of ``version`` that names at least one SST file."""
    return next(
        z for z in sorted((checkpoint / "state" / "0").glob(f"*/{version}.zip"))
        if '"sstFiles":[{' in zipfile.ZipFile(z).read("metadata").decode()
    )  # fmt: skip


STATE = "state/0"
DAMAGES: dict[str, tuple[str, Callable[[Path], object], list[Expected]]] = {
    "metadata missing": ("hdfs", lambda c: lose(c / "metadata"),
                         [("METADATA_MISSING", "error", "metadata")]),
    "metadata unreadable": ("hdfs", lambda c: (c / "metadata").write_text("{not json"),
                            [("METADATA_UNREADABLE", "error", "metadata")]),
    "offsets gap the restart reads": ("hdfs", lambda c: lose(c / "offsets/1"),
                                      [("LOG_GAP", "error", "offsets/1")]),
    "commits gap": ("hdfs", lambda c: lose(c / "commits/1"),
                    [("LOG_GAP", "warning", "commits/1")]),
    "commit without offsets": ("hdfs", lambda c: lose(c / "offsets/2"),
                               [("COMMIT_WITHOUT_OFFSETS", "error", "offsets/2")]),
    "offsets of the wrong shape": ("hdfs", lambda c: (c / "offsets/2").write_text("v1\n[1,2]\n"),
                                   [("LOG_ENTRY_UNREADABLE", "error", "offsets/2")]),
    "a source offset that is not JSON": (
        "hdfs", lambda c: hand_edit(c / "offsets/2", '{"logOffset":', '{logOffset:'),
        [("LOG_ENTRY_UNREADABLE", "error", "offsets/2")]),
    "commit of a newer Spark": ("hdfs", lambda c: (c / "commits/2").write_text("v99\n{}\n"),
                                [("LOG_ENTRY_NEWER", "error", "commits/2")]),
    "an old commit unreadable": ("hdfs", lambda c: (c / "commits/0").write_text("garbage"),
                                 [("LOG_ENTRY_UNREADABLE", "warning", "commits/0")]),
    "stopped after planning": (
        "hdfs", lambda c: (lose(c / "commits/2"), remove_version(c, 3)),
        [("UNCOMMITTED_BATCH", "info", "offsets/2")]),
    "killed after writing state": (
        "hdfs", lambda c: lose(c / "commits/2"),
        [("UNCOMMITTED_BATCH", "info", "offsets/2")]
        + [("STATE_FILES_PAST_COMMIT", "info", f"{STATE}/{p}/3.delta") for p in range(4)]),
    "two batches planned": (
        "hdfs", lambda c: [shutil.copy(c / "offsets/2", c / f"offsets/{b}") for b in (3, 4)],
        [("UNCOMMITTED_BATCHES", "error", "offsets/4")]),
    "log edited by hand": ("hdfs", lambda c: hand_edit(c / "offsets/2", '"batchWatermarkMs":0',
                                                       '"batchWatermarkMs":1'),
                           [("STALE_CHECKSUM", "warning", "offsets/2")]),
    "delta missing": ("hdfs", lambda c: lose(c / STATE / "1/2.delta"),
                      [("STATE_FILE_MISSING", "error", f"{STATE}/1/2.delta")]),
    "delta truncated": ("hdfs", lambda c: truncate(c / STATE / "1/3.delta"),
                        [("STATE_FILE_CORRUPT", "error", f"{STATE}/1/3.delta")]),
    "partition missing": ("hdfs", lambda c: shutil.rmtree(c / STATE / "2"),
                          [("STATE_PARTITION_MISSING", "error", f"{STATE}/2")]),
    "extra partition": ("hdfs", lambda c: shutil.copytree(c / STATE / "0", c / STATE / "4"),
                        [("EXTRA_PARTITION", "warning", f"{STATE}/4")]),
    "partitions disagree": (
        "hdfs", lambda c: hand_edit(without_checksum(c / "offsets/2"),
                                    '"spark.sql.shuffle.partitions":"4"',
                                    '"spark.sql.shuffle.partitions":"8"'),
        [("PARTITIONS_DISAGREE", "error", f"{STATE}/_metadata")]),
    "provider disagrees": (
        "hdfs", lambda c: hand_edit(without_checksum(c / "offsets/2"),
                                    "state.HDFSBackedStateStoreProvider",
                                    "state.RocksDBStateStoreProvider"),
        [("PROVIDER_DISAGREE", "error", f"{STATE}/0")]),
    "state past every batch": (
        "hdfs", lambda c: shutil.copy(c / STATE / "0/3.delta", c / STATE / "0/5.delta"),
        [("STATE_FILES_PAST_COMMIT", "warning", f"{STATE}/0/5.delta")]),
    "edit leftover": ("hdfs", lambda c: (c / "_savepoint-tx-dead").mkdir(),
                      [("EDIT_LEFTOVER", "warning", "_savepoint-tx-dead")]),
    "temporary file": ("hdfs", lambda c: (c / "offsets/.3.0f1e2d3c.tmp").write_text("v1"),
                       [("TEMPORARY_FILE", "info", "offsets/.3.0f1e2d3c.tmp")]),
    "changelog missing": (
        "rocksdb", lambda c: remove_version(c, 3),
        [("STATE_FILE_MISSING", "error", f"{STATE}/{p}/3.changelog") for p in range(4)]),
    "changelog truncated": ("rocksdb", lambda c: truncate(c / STATE / "1/3.changelog"),
                            [("STATE_FILE_CORRUPT", "error", f"{STATE}/1/3.changelog")]),
    "commit of the other format": (
        "rocksdb_v2", lambda c: (without_checksum(c / "commits/2").write_text(
            "v2\n" + '{"nextBatchWatermarkMs":0}')),
        [("FORMAT_DISAGREE", "error", f"{STATE}/0")]),
    "schema removed, its checksum left": (
        "hdfs", lambda c: (c / STATE / "0/_metadata/schema").unlink(),
        [("ORPHAN_CHECKSUM", "error", f"{STATE}/0/_metadata/.schema.crc"),
         ("SCHEMA_FILE_MISSING", "warning", f"{STATE}/0/_metadata/schema")]),
    "an old log entry removed, its checksum left": (
        "hdfs", lambda c: (c / "offsets/0").unlink(),
        [("ORPHAN_CHECKSUM", "warning", "offsets/.0.crc")]),
    "zip missing": ("rocksdb_zip", lambda c: lose(c / STATE / "3/3.zip"),
                    [("STATE_FILE_MISSING", "error", f"{STATE}/3/3.zip")]),
}  # fmt: skip
"""Damage name -> (base, what is done to a copy, exactly what the doctor must find)."""


FAST = {"metadata missing", "log edited by hand", "delta missing", "changelog truncated",
        "zip missing", "killed after writing state"}  # fmt: skip
"""The damages the fast loop (``-m "not slow"``) tries; the full suite tries them all."""


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=() if n in FAST else pytest.mark.slow) for n in DAMAGES]
)
def test_each_damage_is_named_exactly(spark, bases, tmp_path, name):
    base, damage, expected = DAMAGES[name]
    checkpoint = damaged(bases[base], tmp_path, damage)
    assert found(spark, checkpoint) == sorted(expected, key=_order)


def _order(finding: Expected) -> tuple[int, str, str]:
    return (["error", "warning", "info"].index(finding[1]), finding[2] or "", finding[0])


@pytest.mark.parametrize(
    "base", [pytest.param(b, marks=pytest.mark.slow if b == "rocksdb_v2" else ()) for b in LAYOUTS]
)
def test_a_healthy_base_has_no_finding(spark, bases, base):
    assert found(spark, bases[base]) == []


def test_a_missing_or_cut_sst_file(spark, bases, tmp_path):
    def remove(c: Path) -> None:
        zip_file = zip_with_sst(c, 3)
        lose(zip_file.parent / "SSTs" / ssts_named_by(zip_file)[0])

    checkpoint = damaged(bases["rocksdb_zip"], tmp_path / "missing", remove)
    zip_file = zip_with_sst(checkpoint, 3)
    sst = f"{zip_file.parent.relative_to(checkpoint)}/SSTs/{ssts_named_by(zip_file)[0]}"
    assert found(spark, checkpoint) == [("SST_FILE_MISSING", "error", sst)]

    cut = damaged(bases["rocksdb_zip"], tmp_path / "cut",
                  lambda c: truncate(without_checksum(c / sst)))  # fmt: skip
    (finding,) = damage_of(verify(spark, str(cut)).findings)
    assert (finding.check, finding.file) == ("STATE_FILE_CORRUPT", sst)
    assert "bytes, the snapshot" in finding.message and "3.zip records" in finding.message


@pytest.mark.slow
def test_checkpoint_format_2(spark, bases, tmp_path):
    """The commit names each partition's file (``3_<id>.changelog``); Spark's own checksum file
    (``3_<id>.changelog.crc``, CRC32C) finds a changed byte where no Hadoop checksum is."""
    base = bases["rocksdb_v2"]
    change = only(base / STATE / "1", "3_*.changelog").relative_to(base)
    missing = damaged(base, tmp_path / "missing", lambda c: lose(c / change))
    assert found(spark, missing) == [("STATE_FILE_MISSING", "error", str(change))]

    def flip(c: Path) -> None:
        data = bytearray(without_checksum(c / change).read_bytes())
        data[len(data) // 2] ^= 0xFF
        (c / change).write_bytes(bytes(data))

    flipped = damaged(base, tmp_path / "flipped", flip)
    (finding,) = damage_of(verify(spark, str(flipped)).findings)
    assert (finding.check, finding.file) == ("STATE_FILE_CORRUPT", str(change))
    assert f"CRC32C its Spark checksum file records ({change}.crc)" in finding.message


def test_a_schema_file_operator_metadata_names(spark, tmp_path):
    """Operator metadata v2 names transformWithState's schema files by absolute path; in a moved
    checkpoint (the golden's original folder is gone) the copy's own file counts."""
    golden = next(g for g in goldens("4.3.0") if g.case == "tws-rocksdb").folder / "checkpoint"
    assert found(spark, golden) == []
    schema = only(golden / STATE / "_stateSchema/default", "0_*").relative_to(golden)
    checkpoint = damaged(golden, tmp_path, lambda c: lose(c / schema))
    assert found(spark, checkpoint) == [("SCHEMA_FILE_MISSING", "error", str(schema))]


@pytest.mark.slow
@pytest.mark.parametrize("golden", goldens(), ids=lambda g: g.id)
def test_every_golden_checkpoint_is_healthy(spark, golden):
    """Every checkpoint Spark 3.5 to 4.3 wrote, as it wrote it: no finding."""
    assert found(spark, golden.folder / "checkpoint") == []


def test_deep_loads_the_state_where_no_checksum_covers_it(spark, bases, tmp_path):
    """A delta cut short on a file system without checksum files (HDFS, S3) passes the file
    checks; ``deep`` loads it as the restarted query would, and names the partition."""
    checkpoint = damaged(bases["hdfs"], tmp_path,
                         lambda c: truncate(without_checksum(c / STATE / "1/3.delta")))  # fmt: skip
    assert found(spark, checkpoint) == []
    (finding,) = damage_of(verify(spark, str(checkpoint), deep=True).findings)
    assert (finding.check, finding.severity, finding.file, finding.partition_id) == (
        UNLOADABLE, "error", f"{STATE}/1", 1)  # fmt: skip
    assert "agg_0.default cannot be loaded: [SAVEPOINT_CORRUPT_FILE]" in finding.message


def test_a_running_query_is_reported(spark, base_queries):
    """A query of this session runs on it (with no new input: it writes nothing meanwhile)."""
    query = base_queries[("agg", "hdfs")]
    with session_confs(spark, query.settings()):  # start leaves them set: restore the session's
        running = query.start(spark, lambda batch, _: batch.collect(), processingTime="1 hour")
        try:
            findings = damage_of(verify(spark, str(query.checkpoint)).findings)
        finally:
            running.stop()
    assert [(f.check, f.severity) for f in findings] == [("QUERY_ACTIVE", "warning")]
    assert "agg_hdfs of this session is running on it" in findings[0].message


def test_sql_and_the_command_line_say_the_same(spark, bases, tmp_path, capsys):
    checkpoint = damaged(bases["hdfs"], tmp_path, lambda c: lose(c / STATE / "1/2.delta"))
    attach(spark, str(checkpoint), "doc_sql")
    (row,) = spark.sql("CALL doc_sql.system.verify()").collect()
    assert (row["class"], row.severity, row.batch_id, row.operator_id, row.partition_id,
            row.file) == ("STATE_FILE_MISSING", "error", 2, 0, 1, f"{STATE}/1/2.delta")  # fmt: skip

    assert main(["doctor", str(checkpoint)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{checkpoint}: the query cannot restart on it, or would restart on wrong" \
        " state (1 error)"  # fmt: skip
    assert out[2].split() == ["error", "STATE_FILE_MISSING", "batch", "2", "·", "operator", "0",
                              "·", "partition", "1", "·", f"{STATE}/1/2.delta"]  # fmt: skip
    assert main(["doctor", str(bases["hdfs"]), "--json"]) == 0
    values = json.loads(capsys.readouterr().out)
    assert values["exit_code"] == 0
    assert [f["check"] for f in values["findings"]] == ["STATE_NEVER_EVICTED"]  # an info
    gap = damaged(bases["hdfs"], tmp_path / "gap", lambda c: lose(c / "commits/1"))
    assert main(["doctor", str(gap)]) == 1
    capsys.readouterr()
    assert main(["doctor", str(tmp_path / "nothing")]) == 3
    assert "[SAVEPOINT_NO_SUCH_CHECKPOINT]" in capsys.readouterr().err


def test_docs_list_every_finding_class():
    classes = re.findall(r"^  ([A-Z_]+)\($", (REPO_ROOT / "catalog/jvm/src/dev/sparksavepoint"
                                               "/doctor/Check.java").read_text(), re.M)  # fmt: skip
    documented = re.findall(r"^### `([A-Z_]+)`", (REPO_ROOT / "docs/doctor.md").read_text(), re.M)
    assert len(classes) > 15
    assert documented == [*classes, UNLOADABLE]
