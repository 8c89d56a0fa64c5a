"""Operator state from a query's logs: ``sources.offsets``, ``sources.files``, ``query.batches``
and ``sink.files``, read from real queries (a file source into a file sink, the rate and
rate-micro-batch sources) and checked against the log files Spark wrote."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from spark_savepoint import attach
from tests.support.checkpoint_files import snapshot
from tests.support.source_queries import count_until, rate_stream, run_file_dedup, write_json

pytestmark = pytest.mark.slow  # real queries of their own


@dataclass(frozen=True)
class LogQueries:
    """The checkpoints (and the file sink's output) of the queries these tests read."""

    files: Path
    output: Path
    input: Path
    rate: Path
    rate_micro_batch: Path


@pytest.fixture(scope="module")
def logs(spark, tmp_path_factory: pytest.TempPathFactory) -> LogQueries:
    root = tmp_path_factory.mktemp("query-logs")
    source, output = root / "input", root / "output"
    source.mkdir()
    write_json(source, "a.json", [1, 2])
    write_json(source, "b.json", [2, 3])
    run_file_dedup(spark, source, output, root / "files")
    write_json(source, "c.json", [4])
    run_file_dedup(spark, source, output, root / "files")
    count_until(spark, rate_stream(spark), F.col("value") % 3, root / "rate", 2)
    micro = spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 7).load()
    count_until(spark, micro, F.col("value") % 3, root / "rate-micro-batch", 3)
    return LogQueries(root / "files", output, source, root / "rate", root / "rate-micro-batch")


def offset_lines(checkpoint: Path, batch: int) -> list[str]:
    """The source lines of offsets/<batch> (after the version and metadata lines)."""
    return (checkpoint / "offsets" / str(batch)).read_text().splitlines()[2:]


def last(checkpoint: Path, log: str = "commits") -> int:
    return max(int(p.name) for p in (checkpoint / log).iterdir() if p.name.isdigit())


def test_lists_the_query_log_namespaces_beside_the_operators(spark, logs) -> None:
    attach(spark, str(logs.files), "ql")
    names = [r.namespace for r in spark.sql("SHOW NAMESPACES IN ql").collect()]
    assert names == ["dedup_0", "sources", "query"]
    tables = [r.tableName for r in spark.sql("SHOW TABLES IN ql.sources").collect()]
    assert tables == ["offsets", "files"]
    attach(spark, str(logs.files), "ql", sink=str(logs.output))
    names = [r.namespace for r in spark.sql("SHOW NAMESPACES IN ql").collect()]
    assert names == ["dedup_0", "sources", "query", "sink"]
    listed = spark.sql(
        "SELECT table_name, key_schema FROM ql.metadata WHERE state_kind = 'operator state'"
    ).collect()
    assert [r.table_name for r in listed] == [
        "ql.sources.offsets", "ql.sources.files", "ql.query.batches", "ql.query.edits",
        "ql.sink.files",
    ]  # fmt: skip
    assert listed[0].key_schema == "source_id INT,topic STRING,partition INT"


def test_file_source_offsets_and_seen_files_per_batch(spark, logs) -> None:
    attach(spark, str(logs.files), "ql")
    batch = last(logs.files)
    (row,) = spark.table("ql.sources.offsets").collect()
    assert (row.batch_id, row.source_id, row.source) == (batch, 0, "file")
    assert row.offset_json == offset_lines(logs.files, batch)[0]
    assert row.offset == json.loads(row.offset_json)["logOffset"]

    files = spark.table("ql.sources.files").orderBy("log_offset", "path").collect()
    names = [(r.log_offset, Path(r.path).name) for r in files]
    assert names == [(0, "a.json"), (0, "b.json"), (1, "c.json")]
    assert all(r.modification_time is not None for r in files)

    then = spark.sql("SELECT path FROM ql.sources.files VERSION AS OF 0").collect()
    assert sorted(Path(r.path).name for r in then) == ["a.json", "b.json"]
    (then,) = spark.sql("SELECT `offset` FROM ql.sources.offsets VERSION AS OF 0").collect()
    assert then.offset == json.loads(offset_lines(logs.files, 0)[0])["logOffset"]


def test_batches_carry_the_logs_timestamps_watermarks_and_confs(spark, logs) -> None:
    attach(spark, str(logs.rate), "ql")
    rows = spark.table("ql.query.batches").orderBy("batch_id").collect()
    planned = sorted(int(p.name) for p in (logs.rate / "offsets").iterdir() if p.name.isdigit())
    assert [r.batch_id for r in rows] == planned
    for r in rows:
        metadata = json.loads((logs.rate / "offsets" / str(r.batch_id)).read_text().split("\n")[1])
        assert r.watermark_ms == metadata["batchWatermarkMs"]
        assert int(r.batch_timestamp.timestamp() * 1000) == metadata["batchTimestampMs"]
        assert r.conf == metadata["conf"]
        assert r.shuffle_partitions == int(metadata["conf"]["spark.sql.shuffle.partitions"])
        assert r.provider == "hdfs"
        commit = logs.rate / "commits" / str(r.batch_id)
        assert r.committed == commit.exists()
        if r.committed:
            assert (
                r.next_watermark_ms
                == json.loads(commit.read_text().split("\n")[1])["nextBatchWatermarkMs"]
            )
            assert r.committed_at >= r.planned_at
    up_to = spark.sql("SELECT max(batch_id) AS b FROM ql.query.batches VERSION AS OF 0").first()
    assert up_to.b == 0


def test_rate_sources_offsets_are_parsed(spark, logs) -> None:
    attach(spark, str(logs.rate), "ql")
    (row,) = spark.table("ql.sources.offsets").collect()
    assert (row.source, row.offset) == ("rate", int(offset_lines(logs.rate, last(logs.rate))[0]))
    assert "rate source started at" in row.description

    attach(spark, str(logs.rate_micro_batch), "ql")
    batch = last(logs.rate_micro_batch)
    (row,) = spark.table("ql.sources.offsets").collect()
    expected = json.loads(offset_lines(logs.rate_micro_batch, batch)[0])
    assert (row.batch_id, row.source, row.offset) == (batch, "rate-micro-batch",
                                                      expected["offset"])  # fmt: skip
    assert expected["offset"] == 7 * (batch + 1)


def test_sink_files_name_the_batch_that_wrote_each_file(spark, logs) -> None:
    attach(spark, str(logs.files), "ql", sink=str(logs.output))
    rows = spark.table("ql.sink.files").collect()
    expected = set()
    for entry in (logs.output / "_spark_metadata").iterdir():
        if entry.name.isdigit():
            for line in entry.read_text().splitlines()[1:]:
                expected.add((int(entry.name), json.loads(line)["path"]))
    assert {(r.batch_id, r.path) for r in rows} == expected
    assert {r.batch_id for r in rows} == {0, 1}
    for r in rows:
        assert r.action == "add"
        assert Path(r.path.removeprefix("file://")).stat().st_size == r.size
    first = spark.sql("SELECT DISTINCT batch_id FROM ql.sink.files VERSION AS OF 0").collect()
    assert [r.batch_id for r in first] == [0]


def test_the_log_tables_refuse_writes_and_a_missing_sink_says_how(spark, logs) -> None:
    attach(spark, str(logs.files), "ql")
    before = snapshot(logs.files)
    with pytest.raises(Exception, match=r"SAVEPOINT_NO_SINK_LOG.*sink=OUTPUT"):
        spark.table("ql.sink.files").collect()
    with pytest.raises(Exception, match=r"SAVEPOINT_UNSUPPORTED.*ql\.sources\.offsets"):
        spark.sql("INSERT INTO ql.sources.offsets SELECT * FROM ql.sources.offsets")
    with pytest.raises(Exception, match=r"SAVEPOINT_NO_SUCH_STATE.*'nope'.*offsets, files"):
        spark.table("ql.sources.nope").collect()
    attach(spark, str(logs.files), "ql", sink=str(logs.input))
    with pytest.raises(Exception, match=r"SAVEPOINT_NO_SINK_LOG.*has no file sink log"):
        spark.table("ql.sink.files").collect()
    assert snapshot(logs.files) == before


def test_cli_offsets_prints_a_line_per_source_after_the_batch(spark, logs, capsys) -> None:
    from spark_savepoint.sql_ext.cli import main

    assert main(["offsets", str(logs.files), "--batch", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"batch 0 of '{logs.files}': committed ")
    assert lines[0].endswith("no watermark")
    offset = json.loads(offset_lines(logs.files, 0)[0])["logOffset"]
    assert lines[1].startswith(f"  source 0  file  -  offset {offset}  file source:")
    assert len(lines) == 2

    assert main(["offsets", str(logs.rate)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"batch {last(logs.rate)} of '{logs.rate}'")
    assert "  source 0  rate  -  offset " in lines[1]
