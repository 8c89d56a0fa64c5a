"""``inspect`` on real checkpoints: its numbers against the truth (rows read through the
catalog, bytes of the files on disk, batches of ``commits/``), no Spark job for what the files
say, the HTML page, and the listing through Hadoop."""

from __future__ import annotations

import json
import os
import re
import statistics
import threading
import zipfile
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from spark_savepoint.sql_ext.cli import main
from spark_savepoint.sql_ext.cli.report_html import render
from spark_savepoint.sql_ext.inspection import Inspection, inspect_checkpoint
from spark_savepoint.sql_ext.procedures import list_files
from spark_savepoint.sql_ext.state_files import StateFiles
from tests.support.streaming_queries import build

CASES = [(kind, provider) for kind in ("agg", "dedup", "join") for provider in ("hdfs", "rocksdb")]
CATALOG = "insp"
DATA_FILE = re.compile(r"(\d+)(?:_[^.]*)?\.(?:delta|snapshot|zip|changelog)(?:\.crc)?")


@pytest.fixture(scope="module")
def inspected(spark, checkpoints) -> dict[tuple[str, str], Inspection]:
    """Each case attached as its own catalog (``insp_agg_hdfs``), so its tables stay readable."""
    return {
        case: inspect_checkpoint(
            spark, str(checkpoints[case].checkpoint), catalog=f"{CATALOG}_{'_'.join(case)}"
        )
        for case in CASES
    }


def _disk(folder: Path) -> dict[str, int]:
    """Files under ``folder`` (relative path -> bytes), without the local file system's hidden
    checksum sidecars (``.name.crc``), which Hadoop does not list."""
    return {
        str(Path(root, name).relative_to(folder)): Path(root, name).stat().st_size
        for root, _, names in os.walk(folder)
        for name in names
        if not (name.startswith(".") and name.endswith(".crc"))
    }


@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_rows_per_partition_and_skew_match_the_tables(spark, inspected, case) -> None:
    (op,) = inspected[case].operators
    for table in op.tables:
        if table.state_kind == "join_store":
            assert table.rows_per_partition is None  # listed, not counted
            continue
        per_partition = Counter(
            r.partition_id for r in spark.table(table.table).select("partition_id").collect()
        )
        truth = [per_partition.get(p, 0) for p in range(table.partitions)]
        assert list(table.rows_per_partition) == truth, table.table
        assert table.rows == sum(truth) > 0 and table.largest == max(truth)
        median = statistics.median(truth)
        assert table.median == median
        assert table.skew == (max(truth) / median if median else None)


@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_bytes_and_batches_match_the_files(inspected, checkpoints, case) -> None:
    ckpt = checkpoints[case].checkpoint
    inspection = inspected[case]
    (op,) = inspection.operators
    on_disk = _disk(ckpt / "state" / str(op.operator_id))
    assert op.bytes_on_disk == sum(on_disk.values())
    partitions = Counter()
    for path, size in on_disk.items():
        top = path.split("/")[0]
        if top.isdigit():
            partitions[int(top)] += size
    assert op.partition_bytes == tuple(partitions[p] for p in range(op.partitions))
    versions = [int(m.group(1)) for p in on_disk if (m := DATA_FILE.fullmatch(Path(p).name))]
    assert op.versions == (min(versions), max(versions))
    written = Counter()
    for path, size in on_disk.items():
        if m := DATA_FILE.fullmatch(Path(path).name):
            written[int(m.group(1)) - 1] += size  # changelog checkpointing: no shared SSTs
    assert {b.batch_id: b.written.get(op.uid, 0) for b in inspection.batches} == dict(written)
    commits = sorted(int(p.name) for p in (ckpt / "commits").iterdir() if p.name.isdigit())
    assert inspection.committed == commits and inspection.batch_id == commits[-1]
    # Hadoop gives whole milliseconds, cut down from the file's nanoseconds, never rounded up
    last_ms = (ckpt / "commits" / str(commits[-1])).stat().st_mtime_ns // 1_000_000
    expected = datetime.fromtimestamp(last_ms / 1000).isoformat(sep=" ", timespec="milliseconds")
    assert inspection.last_commit == expected
    assert inspection.provider == case[1] and op.partitions == 4


def test_what_the_files_say_takes_no_spark_job(spark, checkpoints) -> None:
    group = "inspect-no-jobs"
    spark.sparkContext.setJobGroup(group, "inspect without rows")
    try:
        for case in CASES:
            bare = inspect_checkpoint(
                spark, str(checkpoints[case].checkpoint), rows=False, catalog=CATALOG
            )
            assert bare.operators[0].bytes_on_disk > 0 and not bare.rows_counted
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    assert spark.sparkContext.statusTracker().getJobIdsForGroup(group) == []


def test_an_older_batch_counts_its_own_rows(spark, checkpoints) -> None:
    ckpt = str(checkpoints[("agg", "rocksdb")].checkpoint)
    (table,) = inspect_checkpoint(spark, ckpt, batch=0, catalog=CATALOG).operators[0].tables
    truth = spark.sql(f"SELECT count(*) FROM {CATALOG}.agg_0.default VERSION AS OF 0").first()[0]
    assert table.rows == truth == 2  # alice and bob after batch 0; carol came in batch 1


@pytest.mark.parametrize("case", [("agg", "hdfs"), ("join", "rocksdb")], ids="-".join)
def test_the_page_has_one_bar_per_partition(inspected, case) -> None:
    page = render(inspected[case])
    assert not re.search(r"https?://|<script|<link|@import|url\(", page)
    for table in inspected[case].operators[0].tables:
        chart = re.search(rf'<svg class="partitions" data-table="{table.table}".*?</svg>', page)
        if table.rows_per_partition is None:
            assert chart is None
            continue
        bars = re.findall(
            r'<rect class="bar[^"]*"[^>]*><title>partition (\d+): (\d+) rows', chart[0]
        )
        assert [(int(p), int(n)) for p, n in bars] == list(enumerate(table.rows_per_partition))


def test_the_command_prints_the_summary_and_writes_the_page(checkpoints, capsys, tmp_path) -> None:
    ckpt = str(checkpoints[("dedup", "hdfs")].checkpoint)
    page = tmp_path / "report.html"
    assert main(["inspect", ckpt, "--html", str(page)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"checkpoint '{ckpt}' at batch 1: provider hdfs")
    assert out[1].startswith("committed batches kept: 2 (0..1), last commit ")
    header = out.index(
        "uid      state    partitions  rows  largest  median  skew  on disk  versions"
    )
    assert out[header + 1].split()[:4] == ["dedup_0", "default", "4", "4"]  # e1..e4
    assert out[-1] == f"Wrote {page}."
    assert page.read_text().count('<rect class="bar') == 4
    assert main(["inspect", ckpt, "--json", "--no-rows"]) == 0
    values = json.loads(capsys.readouterr().out)
    assert values["committed_batches"] == [0, 1] and values["rows_counted"] is False
    assert values["operators"][0]["tables"][0]["rows"] is None


def test_listing_goes_through_hadoop_and_reads_odd_names(spark, checkpoints, tmp_path) -> None:
    """One call (CALL ...system.list_files()) lists a folder with sizes and times, sorted,
    checksum sidecars hidden; names with commas and semicolons come through as they are."""
    ckpt = checkpoints[("join", "rocksdb")].checkpoint
    listed = list_files(spark, str(ckpt))
    assert [path for path, _, _ in listed] == sorted(path for path, _, _ in listed)
    assert {path: size for path, size, _ in listed} == _disk(ckpt)
    assert all(abs(t / 1000 - (ckpt / p).stat().st_mtime) < 0.002 for p, _, t in listed)
    odd = tmp_path / "odd"
    (odd / "a, b").mkdir(parents=True)
    (odd / "a, b" / "x; isDirectory=false; length=1; y").write_text("12345")
    (odd / "z.delta").write_text("1")
    assert sorted((p, n) for p, n, _ in list_files(spark, f"file://{odd}")) == [
        ("a, b/x; isDirectory=false; length=1; y", 5), ("z.delta", 1)]  # fmt: skip
    assert list_files(spark, str(tmp_path / "missing")) == []


def test_rocksdb_shared_files_count_with_the_zip_that_lists_them(spark, tmp_path) -> None:
    """Without changelog checkpointing every batch uploads SST files and a zip whose metadata
    lists them: each SST counts for the first batch whose zip lists it."""
    conf = {"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "false"}
    query = build(spark, "agg", "rocksdb", tmp_path / "q", confs=conf)
    state = query.checkpoint / "state"
    files = StateFiles.of(list_files(spark, str(state)))
    shared = {(f.partition, f.store, f.modified_ms): b for f, b in files.attributed()
              if f.kind == "shared"}  # fmt: skip
    truth = {}
    for zip_path in sorted(state.glob("0/*/*.zip"), key=lambda p: int(p.stem)):
        version_line, text = zipfile.ZipFile(zip_path).read("metadata").decode().split("\n", 1)
        listed = json.loads(text)["sstFiles"]  # after a "v1" line
        for sst in listed:
            mtime = (zip_path.parent / "SSTs" / sst["dfsSstFileName"]).stat().st_mtime_ns
            key = (int(zip_path.parent.name), "default", mtime // 1_000_000)
            truth.setdefault(key, int(zip_path.stem) - 1)
    assert shared == truth and len(truth) >= 2
    total = sum(f.size for f in files.files if f.version is not None or f.kind == "shared")
    assert sum(sum(ops.values()) for ops in files.written_by_batch().values()) == total


def test_calls_of_two_threads_on_one_session_keep_their_own_folders(spark, tmp_path) -> None:
    """Each thread's calls point a scratch catalog of its own at their folder: two threads
    listing two folders at once through one session never get the other's files."""
    folders = {name: tmp_path / name for name in ("left", "right")}
    for name, folder in folders.items():
        folder.mkdir()
        (folder / f"{name}.delta").write_text(name)
    seen: dict[str, set[str]] = {name: set() for name in folders}

    def list_many(name: str) -> None:
        for _ in range(15):
            seen[name].update(path for path, _, _ in list_files(spark, str(folders[name])))

    threads = [threading.Thread(target=list_many, args=(name,)) for name in folders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"left": {"left.delta"}, "right": {"right.delta"}}
