"""Rewinding and skipping Kafka input (``UPDATE <catalog>.sources.offsets``) against a real
broker on loopback: the restarted real word count re-reads exactly the rewound records, or
ignores the skipped ones, and adds what it reads to its intact state. The edited offsets line
is byte for byte what Spark's own Kafka offset serialization writes.

The broker (KRaft) and Spark's Kafka connector come from Maven Central through ``mvn``, fetched
once and cached (``tests.support.kafka``); the query runs in a Spark driver of its own with the
connector (``tests.support.kafka_query``), the edits in the session's catalog."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import start_program
from tests.support.checkpoint_files import last_batch, snapshot
from tests.support.kafka import Broker, connector_jars, create_topic, start_broker

pytestmark = pytest.mark.slow  # a broker and Spark drivers of their own

TOPIC = "words"
FIRST = ["0:a:apple", "0:c:apple", "1:b:pear", "1:d:plum"]  # partition:key:value
SECOND = ["1:e:pear", "0:f:fig"]


@dataclass(frozen=True)
class Built:
    broker: Broker
    after_first: Path  # batch 0: offsets {"0":2,"1":2}
    after_second: Path  # batch 1: offsets {"0":3,"1":3}


def kafka_query(broker: Broker, checkpoint: Path, *produce: str) -> list[dict]:
    """The word count on the topic, run in its own driver until it has read what is there
    (after writing ``produce`` rows); the batches of this run."""
    out = checkpoint.parent / f"{checkpoint.name}.out.json"
    args = [broker.bootstrap, TOPIC, str(checkpoint), str(out)]
    run_program(*args, *(["--produce", *produce] if produce else []), cwd=checkpoint.parent)
    return json.loads(out.read_text())


def run_program(*args: str, cwd: Path) -> str:
    """``tests.support.kafka_query`` in its own process; its stdout (fails with its stderr)."""
    program = start_program("kafka_query", *args, cwd=cwd, stdin=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)  # fmt: skip
    try:
        out, err = program.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        program.kill()
        out, err = program.communicate()
    assert program.returncode == 0, err[-3000:]
    return out


def kafka_line(checkpoint: Path, batch: int) -> str:
    """The Kafka source's offsets in ``offsets/<batch>`` (its last line)."""
    return (checkpoint / "offsets" / str(batch)).read_text().splitlines()[-1]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    connector_jars()  # fetched (once) before the broker's clock starts
    root = tmp_path_factory.mktemp("kafka")
    with start_broker(root / "broker") as broker:
        create_topic(broker.bootstrap, TOPIC, partitions=2)
        checkpoint = root / "wordcount"
        first = kafka_query(broker, checkpoint, *FIRST)
        assert first == [{"batch": 0, "rows": {"apple": 2, "pear": 1, "plum": 1}}]
        shutil.copytree(checkpoint, root / "after_first")
        second = kafka_query(broker, checkpoint, *SECOND)
        assert second == [{"batch": 1, "rows": {"pear": 2, "fig": 1}}]
        assert kafka_line(checkpoint, 1) == '{"words":{"0":3,"1":3}}'
        yield Built(broker, root / "after_first", checkpoint)


@pytest.fixture()
def copy(attached_copy):
    return attached_copy


def counts(spark) -> dict[str, int]:
    rows = spark.sql("SELECT * FROM rw.agg_0.default").collect()
    return {r[0]: r["count"] for r in rows}  # the key: Spark names it _groupingexpression


def positions(spark) -> dict[int, int]:
    rows = spark.sql("SELECT partition, offset FROM rw.sources.offsets").collect()
    return {r.partition: r.offset for r in rows}


def test_the_offsets_table_shows_each_topic_partition(spark, built, copy) -> None:
    copy(built.after_second)
    rows = spark.sql("SELECT * FROM rw.sources.offsets ORDER BY partition").collect()
    assert [(r.source, r.topic, r.partition, r.offset) for r in rows] == [
        ("kafka", TOPIC, 0, 3),
        ("kafka", TOPIC, 1, 3),
    ]
    assert rows[0].offset_json == '{"words":{"0":3,"1":3}}'


def test_a_rewind_reads_the_records_again_into_the_intact_state(spark, built, copy) -> None:
    ckpt = copy(built.after_second)
    before = counts(spark)
    assert before == {"apple": 2, "pear": 2, "plum": 1, "fig": 1}
    spark.sql(f"UPDATE rw.sources.offsets SET offset = 1 WHERE topic = '{TOPIC}' AND partition = 1")
    assert last_batch(ckpt) == 2, "one batch: a Kafka source needs no second one"
    assert kafka_line(ckpt, 2) == '{"words":{"0":3,"1":1}}'
    assert counts(spark) == before, "the edit's batch carries the state over"

    run = kafka_query(built.broker, ckpt)  # the real query, restarted
    assert run == [{"batch": 3, "rows": {"plum": 2, "pear": 3}}], "partition 1, offsets 1 and 2"
    assert counts(spark) == {"apple": 2, "pear": 3, "plum": 2, "fig": 1}
    assert positions(spark) == {0: 3, 1: 3}


def test_a_skip_ignores_the_records_and_reads_on(spark, built, copy) -> None:
    ckpt = copy(built.after_first)
    spark.sql(f"UPDATE rw.sources.offsets SET offset = 3 WHERE topic = '{TOPIC}' AND partition = 1")
    run = kafka_query(built.broker, ckpt)
    assert run == [{"batch": 2, "rows": {"fig": 1}}], "partition 1's pear was skipped"
    assert counts(spark) == {"apple": 2, "pear": 1, "plum": 1, "fig": 1}
    assert positions(spark) == {0: 3, 1: 3}


def test_the_edited_line_is_what_spark_writes(spark, built, copy) -> None:
    """Rewinding to batch 0's positions writes batch 0's line again, and an edited line is
    Spark's own serialization of the same offsets (its key order included)."""
    ckpt = copy(built.after_second)
    spark.sql("""
        MERGE INTO rw.sources.offsets t
        USING (SELECT * FROM rw.sources.offsets VERSION AS OF 0) s
        ON t.source_id = s.source_id AND t.topic <=> s.topic AND t.partition <=> s.partition
        WHEN MATCHED THEN UPDATE SET offset = s.offset
    """)
    assert (ckpt / "offsets" / "2").read_bytes() != (ckpt / "offsets" / "0").read_bytes()
    assert kafka_line(ckpt, 2) == kafka_line(ckpt, 0) == '{"words":{"0":2,"1":2}}'
    spark.sql("UPDATE rw.sources.offsets SET offset = 1234567 WHERE partition = 0")
    edited = kafka_line(ckpt, 3)
    assert edited == '{"words":{"0":1234567,"1":2}}'
    printed = run_program("--spark-json", edited, cwd=ckpt.parent).splitlines()
    assert printed == [edited]


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("UPDATE rw.sources.offsets SET offset = -1 WHERE partition = 0", "cannot be negative"),
        ("UPDATE rw.sources.offsets SET partition = 7 WHERE partition = 0", "only the offset"),
        ("UPDATE rw.sources.offsets SET topic = 'other'", "only the offset"),
    ],
)
def test_kafka_positions_refused_change_nothing(spark, built, copy, statement, message) -> None:
    ckpt = copy(built.after_second)
    before = snapshot(ckpt)
    with pytest.raises(Exception, match=f"SAVEPOINT_BAD_SOURCE_POSITION.*{message}"):
        spark.sql(statement)
    assert snapshot(ckpt) == before
