"""INSERT OVERWRITE writes the new state whole: one image per partition (HDFS-backed: a
``.snapshot``; RocksDB: a ``.zip``), staged and moved into place around the commit, and the
restarted query continues from exactly the rows given."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from spark_savepoint import attach, last_edit
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.streaming_queries import build, restart_rows

TABLE = "ow.agg_0.default"
NEW_STATE = "VALUES ('alice', 50L, 500L), ('zed', 1L, 1L)"
"""bob and carol go, alice changes, zed is new."""


def image_files(checkpoint: Path, version: int) -> list[str]:
    """The names of version ``version``'s files in the aggregation's partition folders."""
    return sorted(
        f.name
        for f in (checkpoint / "state" / "0").glob(f"*/{version}*")
        if not f.name.endswith(".crc")
    )


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_overwrite_writes_images_the_query_continues_from(spark, private_copy, provider) -> None:
    query = private_copy("agg", provider, "ow")
    n = last_batch(query.checkpoint)
    spark.sql(f"INSERT OVERWRITE {TABLE} {NEW_STATE}")

    report = last_edit(spark)
    assert report is not None and (report.batch_id, report.written, report.removed) == (
        n + 1,
        2,
        None,
    )
    assert report.summary.startswith("savepoint: agg_0.default: state replaced by 2 entries")
    kind = "snapshot" if provider == "hdfs" else "zip"
    assert image_files(query.checkpoint, n + 2) == [f"{n + 2}.{kind}"] * 4
    assert not list(query.checkpoint.glob("_savepoint-tx-*"))
    rows = sorted(tuple(r)[:3] for r in spark.table(TABLE).collect())
    assert rows == [("alice", 50, 500), ("zed", 1, 1)]

    assert query.restart(spark) == [
        {"user": "alice", "cnt": 52, "total": 508},
        {"user": "dave", "cnt": 1, "total": 8},
    ]


def test_overwrite_with_no_rows_empties_the_state(spark, private_copy) -> None:
    query = private_copy("agg", "rocksdb", "ow")
    spark.sql(f"INSERT OVERWRITE {TABLE} SELECT * FROM {TABLE} WHERE false")
    report = last_edit(spark)
    assert report is not None and report.committed and report.written == 0
    assert spark.table(TABLE).count() == 0
    assert query.restart(spark) == [
        {"user": "alice", "cnt": 2, "total": 8},
        {"user": "dave", "cnt": 1, "total": 8},
    ]


@pytest.mark.parametrize("provider", ["hdfs", "rocksdb"])
def test_rolling_back_to_an_earlier_batch(spark, private_copy, provider) -> None:
    """The README's roll back: the state of batch 0 written whole as a new batch."""
    query = private_copy("agg", provider, "ow")
    batch0 = sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {TABLE} VERSION AS OF 0").collect())
    spark.sql(f"INSERT OVERWRITE {TABLE} SELECT * FROM {TABLE} VERSION AS OF 0")
    assert sorted(tuple(r) for r in spark.table(TABLE).collect()) == batch0
    assert query.restart(spark) == [  # batch 1 (carol, bob again) is forgotten
        {"user": "alice", "cnt": 4, "total": 25},
        {"user": "dave", "cnt": 1, "total": 8},
    ]


@pytest.mark.parametrize(("kind", "uid", "rows"), [
    ("dedup", "dedup_0", "VALUES (5L), (6L)"),
    ("pandas_state", "groupstate_0", "SELECT 'alice', 10L, 100L, CAST(NULL AS BIGINT)"),
])  # fmt: skip
def test_other_kinds_overwrite_whole(spark, private_copy, kind, uid, rows) -> None:
    query = private_copy(kind, "rocksdb", "ow")
    n = last_batch(query.checkpoint)
    spark.sql(f"INSERT OVERWRITE ow.{uid}.default {rows}")
    assert last_edit(spark).removed is None  # type: ignore[union-attr]
    assert image_files(query.checkpoint, n + 2) == [f"{n + 2}.zip"] * 4
    out = query.restart(spark)
    if kind == "dedup":  # 5 and 6 are known now: only event 3 of the restart wave is new
        assert [r["event_id"] for r in out] == [3]
    else:
        assert {r["user"]: r["cnt"] for r in out} == {"alice": 12, "dave": 1}


@pytest.mark.slow
def test_format_v2_images_are_named_by_their_ids(spark, tmp_path: Path) -> None:
    """With state checkpoint ids, an image is named by its id, which commits/N+1 records."""
    confs = {"spark.sql.streaming.stateStore.checkpointFormatVersion": "2"}
    query = build(spark, "agg", "rocksdb", tmp_path / "v2", confs=confs)
    attach(spark, str(query.checkpoint), "ow")
    n = last_batch(query.checkpoint)
    spark.sql(f"INSERT OVERWRITE {TABLE} {NEW_STATE}")
    commit = json.loads((query.checkpoint / "commits" / str(n + 1)).read_text().splitlines()[1])
    ids = [p[0] for p in commit["stateUniqueIds"]["0"]]
    assert image_files(query.checkpoint, n + 2) == sorted(f"{n + 2}_{i}.zip" for i in ids)
    query.add_input(restart_rows("agg"))
    assert query.run(spark) == [
        {"user": "alice", "cnt": 52, "total": 508},
        {"user": "dave", "cnt": 1, "total": 8},
    ]


@pytest.mark.slow
def test_many_keys_and_one_given_twice(spark, private_copy) -> None:
    """200k keys into HDFS-backed images, which keep no entries and find a repeat by the keys'
    hashes: none is taken for a repeat, and one key given twice among them is refused (read
    back and named) with nothing changed."""
    query = private_copy("agg", "hdfs", "ow")
    keys = "SELECT concat('k', id), 1L, id FROM range(200000)"
    before = snapshot(query.checkpoint)
    with pytest.raises(Exception, match=r"SAVEPOINT_DUPLICATE_KEY.*user=k123456"):
        spark.sql(f"INSERT OVERWRITE {TABLE} {keys} UNION ALL SELECT 'k123456', 2L, 2L")
    assert snapshot(query.checkpoint) == before
    spark.sql(f"INSERT OVERWRITE {TABLE} {keys}")
    assert spark.table(TABLE).count() == 200_000
    assert spark.sql(f"SELECT total FROM {TABLE} WHERE user = 'k123456'").first()[0] == 123456


def recorded_keys(image: Path) -> int:
    """The key count a RocksDB image's metadata records (``numKeys``, after a ``v1`` line)."""
    _, text = zipfile.ZipFile(image).read("metadata").decode().split("\n", 1)
    return json.loads(text)["numKeys"]


def test_rocksdb_images_record_exact_key_counts(spark, private_copy) -> None:
    """A RocksDB image is written without Spark's look-up of every put key that counts keys
    (each key is put once into an empty store); the count each image records, which Spark's
    metrics and the query's next version start from, is still exact per partition."""
    query = private_copy("agg", "rocksdb", "ow")
    n = last_batch(query.checkpoint)
    spark.sql(f"INSERT OVERWRITE {TABLE} SELECT concat('k', id), 1L, id FROM range(20000)")
    images = (query.checkpoint / "state" / "0").glob(f"*/{n + 2}.zip")
    recorded = {int(image.parent.name): recorded_keys(image) for image in images}
    raw = spark.read.format("statestore").load(str(query.checkpoint))
    counted = {r.partition_id: r["count"] for r in raw.groupBy("partition_id").count().collect()}
    assert recorded == counted
    assert sum(recorded.values()) == 20000
