"""Reading a checkpoint's state folder from a listing alone (no Spark): what each file is, the
bytes per operator, partition and batch, skew, and the listing's one-string transfer."""

from __future__ import annotations

import pytest

from spark_savepoint.sql_ext.inspection import skew
from spark_savepoint.sql_ext.state_files import StateFiles, classify


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("0/3/12.delta", (0, 3, "default", 12, "delta")),
        ("0/3/12.snapshot", (0, 3, "default", 12, "snapshot")),
        ("2/0/7.zip", (2, 0, "default", 7, "zip")),
        ("2/0/7_4f1c-9a.zip", (2, 0, "default", 7, "zip")),  # format v2: state checkpoint id
        ("2/0/7_4f1c-9a.changelog.crc", (2, 0, "default", 7, "checksum")),  # Spark's checksum
        ("0/1/left-keyToNumValues/3.changelog", (0, 1, "left-keyToNumValues", 3, "changelog")),
        ("0/1/right-keyWithIndexToValue/SSTs/000009-ab.sst",
         (0, 1, "right-keyWithIndexToValue", None, "shared")),
        ("0/1/logs/000004-cd.log", (0, 1, "default", None, "shared")),
        ("0/1/_metadata/schema", (0, 1, "default", None, "other")),
        ("0/1/.3.delta.8e1f.TID7.tmp", (0, 1, "default", None, "other")),  # a leftover temp file
        ("0/_metadata/metadata", (0, None, None, None, "other")),
        ("1/_stateSchema/default/0_f3.schema", (1, None, None, None, "other")),
    ],
)  # fmt: skip
def test_each_file_is_placed_by_its_path(path: str, expected: tuple) -> None:
    f = classify(path, 10, 0)
    assert f is not None
    assert (f.operator_id, f.partition, f.store, f.version, f.kind) == expected


def test_files_outside_operators_are_ignored() -> None:
    assert classify("README", 1, 0) is None and classify("_savepoint/x", 1, 0) is None


def test_hdfs_bytes_per_batch_are_the_version_files() -> None:
    state = StateFiles.of([
        ("0/0/1.delta", 10, 1), ("0/0/2.delta", 20, 2), ("0/0/2.snapshot", 300, 9),
        ("0/1/1.delta", 1, 1), ("0/1/2.delta", 2, 2), ("0/0/_metadata/schema", 50, 0),
        ("1/0/2.delta", 7, 2), ("0/_metadata/metadata", 4, 0),
    ])  # fmt: skip
    assert state.written_by_batch() == {0: {0: 11}, 1: {0: 322, 1: 7}}
    assert state.operator_bytes(0) == 387 and state.operator_bytes(1) == 7
    assert state.partition_bytes(0) == {0: 380, 1: 3}
    assert state.versions(0) == (1, 2)
    assert state.versions(5) is None


def test_rocksdb_shared_files_count_with_the_first_zip_written_after_them() -> None:
    """Spark uploads a version's new SST files, then its zip: an SST belongs to the next zip of
    its own store (by time), a later SST with no zip yet counts on disk only."""
    state = StateFiles.of([
        ("0/0/SSTs/000008-a.sst", 1000, 100), ("0/0/1.zip", 30, 101),
        ("0/0/2.changelog", 5, 150),
        ("0/0/SSTs/000012-b.sst", 2000, 200), ("0/0/3.zip", 40, 200),  # same millisecond
        ("0/0/SSTs/000020-c.sst", 4000, 300),  # upload cut short: no zip after it
        ("0/1/SSTs/000008-d.sst", 700, 150), ("0/1/3.zip", 9, 160),  # another partition
        ("0/0/left/SSTs/000008-e.sst", 60, 90), ("0/0/left/2.zip", 6, 120),  # another store
    ])  # fmt: skip
    batches = {f.modified_ms: b for f, b in state.attributed() if f.kind == "shared"}
    assert batches == {100: 0, 200: 2, 150: 2, 90: 1}
    assert state.written_by_batch() == {0: {0: 1030}, 1: {0: 5 + 66}, 2: {0: 2040 + 709}}
    assert state.operator_bytes(0) == 7850


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([4, 2, 2, 0], 2.0),
        ([3, 3, 3, 3], 1.0),
        ([7], 1.0),  # one partition
        ([0, 0, 0, 0], None),  # empty state
        ([5, 0, 0, 0], None),  # median 0: most partitions empty
        ([1, 2, 3], 1.5),
        ([], None),
    ],
)
def test_skew_is_largest_over_median(rows: list[int], expected: float | None) -> None:
    assert skew(rows) == expected
