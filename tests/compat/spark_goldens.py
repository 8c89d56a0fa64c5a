"""Apache Spark's own golden checkpoints (``tests/golden/spark``) and what the tool does with each.

Real Spark releases from 2.1.0 to 4.0.1 wrote them for Spark's own test suites, which restart
them; ``query`` says what query that was, after the suite named in ``suite``. Every checkpoint
is one :class:`SparkGolden`: the Spark version that wrote it and the outcome the tool must give,
either the state tables it reads (each with the ``statestore`` reader options that select it in
Spark's own reader, the key columns it is looked up by, and the edit it gets) or the
``SAVEPOINT_*`` class and reason of its one-line refusal. ``tests/compat/test_spark_goldens.py``
holds the tool to it.

    python -m tests.compat.spark_goldens                 # the outcome matrix, one row each
    python -m tests.compat.spark_goldens --fetch 4.2.0   # refresh the folders from that release

``--fetch`` downloads ``org.apache.spark:spark-sql_2.13:VERSION:jar:tests`` from Maven Central
and replaces every ``checkpoint-version-*`` folder (and ``LICENSE``, ``NOTICE``) with the jar's
``structured-streaming/`` ones (``--into DIR`` writes them elsewhere).
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import sys
import urllib.request
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.support import REPO_ROOT

SPARK_GOLDEN_DIR = REPO_ROOT / "tests" / "golden" / "spark"
MAVEN = "https://repo1.maven.org/maven2/org/apache/spark/spark-sql_2.13"

"""Reason of the expected failures on layouts whose state is partitioned by fewer columns than
its key (Spark before 3.3 let a ``repartition`` satisfy the operator: SPARK-38204)."""


@dataclass(frozen=True)
class Refusal:
    """A one-line refusal: its ``SAVEPOINT_*`` class and a regex of the reason it gives."""

    error_class: str
    reason: str


@dataclass(frozen=True)
class StateTable:
    """One state table the catalog shows, and how to check it against Spark's own reader."""

    name: str
    """``<uid>.<state>`` in the catalog."""
    options: Mapping[str, str]
    """Spark's ``statestore`` reader options that select the same state (``path`` and
    ``batchId`` aside: the checkpoint and its last committed batch)."""
    key: tuple[str, ...] = ()
    """The flat key columns: point lookups pin all of them."""
    delete: str | None = None
    """The edit's DELETE predicate (one key); None: the table takes no edit."""
    insert: str | None = None
    """The edit's new row, as SQL ``VALUES``."""
    refused_write: Refusal | None = None
    """The one-line refusal of any write, for tables that cannot be written."""
    reader_schema: str | None = None
    """The schema Spark's reader is given (DDL) instead of the one it infers; see the golden."""


@dataclass(frozen=True)
class Restart:
    """Restart the query on an edited copy with a MemoryStream (``tests.compat.memory_stream``)."""

    schema: str
    """The MemoryStream's rows: ``int`` (Spark's ``MemoryStream[Int]``, column ``value``) or a
    tuple such as ``int,bigint`` (columns ``_1``, ``_2``)."""
    query: str
    """A key of ``tests.compat.memory_stream.QUERIES``: the query on the stream."""
    output_mode: str
    rows: tuple[tuple, ...]
    """The new input after the edit, one micro-batch."""
    emitted: tuple[tuple, ...]
    """What the restarted query emits for it, continuing from the edited state."""
    format_version: int = 1
    spark_refuses: str | None = None
    """A regex of the error Spark's restart fails with, when Spark itself refuses the state."""


@dataclass(frozen=True)
class SparkGolden:
    """One checkpoint Spark wrote, and the outcome the tool gives."""

    path: str
    """Under ``tests/golden/spark``."""
    version: str
    """The Spark release that wrote it."""
    suite: str
    query: str
    tables: tuple[StateTable, ...] = ()
    refusal: Refusal | None = None
    """The one-line refusal of reading it (metadata or a table), or None: it reads."""
    spark_version: str | None = None
    """What ``metadata.spark_version`` says wrote it (None: no state table to say it)."""
    partitioned_by: tuple[str, ...] = ()
    """Columns its state is partitioned by, when fewer than the key (non-strict layout)."""
    restart: Restart | None = None
    warnings: tuple[str, ...] = ()
    """Regexes of the lines ``metadata.warnings`` gives, in order."""
    slow: bool = True
    """Outside the fast loop (``-m "not slow"``)."""

    @property
    def id(self) -> str:
        """``4.0.0-hdfs-agg``: the path without ``checkpoint-version-``, ``/`` as ``-``."""
        return self.path.removeprefix("checkpoint-version-").replace("/", "-")

    @property
    def folder(self) -> Path:
        return SPARK_GOLDEN_DIR / self.path

    def copy(self, target: Path) -> Path:
        """A private copy at ``target`` (the goldens are never edited in place).

        Its files are new, as in a fresh clone: their commits look minutes old, so an edit that
        is not forced meets the guess that the query is alive, as it does in CI.
        """
        shutil.copytree(self.folder, target, copy_function=shutil.copy)
        return target


def _refused(error_class: str, reason: str) -> Refusal:
    return Refusal(error_class, reason)


def _no_schema(writer: str, table: str = "op_0.default", file: str = "state/0/0") -> Refusal:
    """The refusal of state that Spark before 3.1 wrote, with no state schema file."""
    return _refused(
        "SAVEPOINT_NO_STATE_SCHEMA",
        rf"Cannot read or write {re.escape(table)} of .*: its state has no schema file"
        rf" \({re.escape(file)}/_metadata/schema\)\. Spark {re.escape(writer)} wrote the"
        r" checkpoint .*Spark before 3\.1 recorded no state schema.*restart the query once on"
        r" Spark 3\.1 or later",
    )


def _read_only(kind: str, uid: str) -> Refusal:
    """The refusal of writes to an operator kind the tool does not write."""
    return _refused(
        "SAVEPOINT_READ_ONLY_STATE",
        rf"Cannot write state {uid}\.default .*: writing {kind} state \(Spark's \w+\) is not"
        r" supported yet; writable kinds:",
    )


JOIN_STORE = _refused("SAVEPOINT_READ_ONLY_STATE", r"a join's internal stores are read-only")
STORE = {"storeName": "default"}


def _store(name: str) -> dict[str, str]:
    return {"storeName": name}


def _agg(key: tuple[str, ...], delete: str, insert: str, **kw: str) -> StateTable:
    return StateTable("agg_0.default", STORE, key, delete, insert, **kw)


def _dedup(uid: str, key: tuple[str, ...], delete: str, insert: str, **kw: str) -> StateTable:
    return StateTable(f"{uid}.default", STORE, key, delete, insert, **kw)


def _join(left: tuple[str, str], right: tuple[str, str]) -> tuple[StateTable, ...]:
    """A join of ``id`` (``field0``) with its row ``<side>Id, <side>Time``: edits delete one id
    from each side and add one; its four stores are read-only."""
    sides = (StateTable("join_0.left", {"joinSide": "left"}, ("field0",), *left),
             StateTable("join_0.right", {"joinSide": "right"}, ("field0",), *right))  # fmt: skip
    stores = tuple(
        StateTable(f"join_0.{side}_{store}", _store(f"{side}-{store}"), refused_write=JOIN_STORE)
        for side in ("left", "right")
        for store in ("keyToNumValues", "keyWithIndexToValue")
    )  # read only: their rows are the sides' (looked up there)
    return sides + stores


_JOIN_EDIT = _join(
    ("field0 = 10", "(98, 98, TIMESTAMP '1970-01-01 00:00:20')"),
    ("field0 = 10", "(96, 96, TIMESTAMP '1970-01-01 00:00:21')"),
)
_JOIN_351_EDIT = _join(
    ("field0 = 2", "(98, 98, TIMESTAMP '1970-01-01 00:00:20')"),
    ("field0 = 2", "(96, 96, TIMESTAMP '1970-01-01 00:00:21')"),
)
_LIMIT = (StateTable("limit_0.default", STORE,
                     refused_write=_read_only("streaming limit", "limit_0")),)  # fmt: skip
_JOIN_TABLES = tuple(StateTable(t.name, t.options) for t in _JOIN_EDIT)
"""A join's tables, as listed (without schema files they cannot be read)."""

_AGG_40 = "MemoryStream[(Int, Long)].groupBy(_1).count(), update mode; 4 batches of 3 rows"
_DEDUP_40 = "MemoryStream[(Int, Long)].dropDuplicates(_1); 4 batches of 3 rows"
_JOIN_40 = (
    "stream-stream inner join of a MemoryStream[(Int, Long)] with itself (leftId, leftTime) x"
    " (rightId, rightTime), watermarks, join state format {}; 3 batches"
)
_LIMIT_40 = "MemoryStream[(Int, Long)].limit(10); 4 batches of 3 rows"
_STATE_READ_SUITE = "StateDataSourceReadSuite (testSnapshotOn*State)"

_AGG_RESTART = Restart(
    "int,bigint", "count_by_1", "update", ((3, 3), (9, 9)), ((3, 1), (9, 8))
)  # the deleted key 3 counts anew, the inserted key 9 (count 7) goes on
_JOIN_RESTART = Restart(
    "int,bigint",
    "self_join",
    "append",
    ((98, 21), (10, 10)),
    ((98, 20, 98, 21), (98, 21, 98, 21), (10, 10, 10, 10), (10, 10, 10, 10)),
)  # the edit removed left 10 and added left (98, 20 s): both show; right 10 is still there
_DEDUP_RESTART = Restart(
    "int,bigint", "dedup_1", "append", ((3, 30), (9, 90), (7, 70)), ((3, 30), (7, 70))
)  # 3 was forgotten, 9 is known, 7 is new


_PRE_RELEASE = _refused(
    "SAVEPOINT_REFUSED_BY_SPARK",
    r"Cannot read or write tws_0\.countState of .*: a pre-release build of Spark 4\.0\.0 wrote"
    r" its transformWithState state, in formats no Spark release reads: its operator metadata"
    r" names the state schema file under stateSchemaFilePath \(file:/Users/.*\), where Spark"
    r" 4\.0 and later read a list, stateSchemaFilePaths, and find none, and the schema file has"
    r" no schema ids\. Spark 4\.3's own state reader fails on it too",
)
STALE_OFFSETS_1 = r"^offsets/1 does not match its Hadoop checksum file offsets/\.1\.crc"
JOIN_FORMAT_1 = r"^join_0 keeps join state format 1: Spark 3\.0 and later refuse to restart an"

_DEDUP_351_RESTART = Restart(
    "string,int", "dedup_1", "append", (("a", 5), ("z", 1), ("c", 9)), (("a", 5), ("c", 9))
)  # a was forgotten, z is known, c is new
_PLACEHOLDER = "key STRUCT<{}>, value STRUCT<__dummy__: VOID>, partition_id INT"
"""What Spark's reader is given for a dropDuplicates of Spark 3.2 to 3.4: its schema file
records the whole row as the value, its rows hold the placeholder Spark 3.5+ records."""


def _v40(provider: str) -> tuple[SparkGolden, ...]:
    root = f"checkpoint-version-4.0.0/{provider}"
    return (
        SparkGolden(f"{root}/agg", "4.0.0", _STATE_READ_SUITE, _AGG_40,
                    (_agg(("_1",), "_1 = 3", "(9, 7L)"),), spark_version="4.0",
                    restart=_AGG_RESTART, slow=provider == "rocksdb"),
        SparkGolden(f"{root}/dedup", "4.0.0", _STATE_READ_SUITE, _DEDUP_40,
                    (_dedup("dedup_0", ("_1",), "_1 = 3", "(9)"),), spark_version="4.0",
                    restart=_DEDUP_RESTART),
        SparkGolden(f"{root}/join1", "4.0.0", _STATE_READ_SUITE, _JOIN_40.format(1),
                    _JOIN_EDIT, spark_version="4.0", restart=_JOIN_RESTART),
        SparkGolden(f"{root}/join2", "4.0.0", _STATE_READ_SUITE, _JOIN_40.format(2),
                    _JOIN_EDIT, spark_version="4.0", restart=_JOIN_RESTART),
        SparkGolden(f"{root}/limit", "4.0.0", _STATE_READ_SUITE, _LIMIT_40, _LIMIT,
                    spark_version="4.0"),
    )  # fmt: skip


_V2 = "checkpoint-version-4.0.0-checkpoint-v2/rocksdb"
_V2_NOTE = ", checkpoint format v2 (state checkpoint ids in commits/)"

GOLDENS: tuple[SparkGolden, ...] = (
    SparkGolden(
        "checkpoint-version-2.1.0", "2.1.0", "OffsetSeqLogSuite (SPARK-19873)",
        "MemoryStream[Int].groupBy(value).agg(count(*)), complete mode, 10 shuffle partitions;"
        " offsets/ for batches 0 and 1, no commits/",
        refusal=_refused(
            "SAVEPOINT_NO_COMMIT_LOG",
            r"has an offsets/ log \(batches 0\.\.1\) and no commits/ log: Spark 2\.0 and 2\.1"
            r" kept none.* it runs batch 1, the last one in offsets/, again on the state of"
            r" batch 0\. Restart the query once on Spark 3\.0 or later",
        ),
    ),
    SparkGolden(
        "checkpoint-version-2.3.1-flatMapGroupsWithState-state-format-1", "2.3.1",
        "FlatMapGroupsWithStateSuite",
        "groupByKey(_._1).flatMapGroupsWithState(Update, EventTimeTimeout) keeping the max event"
        " time, watermark 10 s, flatMapGroupsWithState state format 1",
        (StateTable("op_0.default", STORE),),
        refusal=_no_schema("2.2 or 2.3"),
        spark_version="2.2 or 2.3",
    ),
    SparkGolden(
        "checkpoint-version-2.3.1-for-multi-watermark-policy", "2.3.1", "EventTimeWatermarkSuite",
        "union of two MemoryStreams with watermarks of 10 s and 15 s: no stateful operator",
    ),
    SparkGolden(
        "checkpoint-version-2.3.1-streaming-aggregate-state-format-1", "2.3.1",
        "StreamingAggregationSuite",
        "MemoryStream[Int].groupBy(value).agg(count(*)), aggregation state format 1",
        (StateTable("op_0.default", STORE),),
        refusal=_no_schema("2.2 or 2.3"),
        spark_version="2.2 or 2.3",
        restart=Restart("int", "count_by_value", "update", ((3,), (2,), (1,)),
                        ((1, 1), (2, 2), (3, 3))),  # fmt: skip
    ),
    SparkGolden(
        "checkpoint-version-2.3.1-without-commit-log-metadata", "2.3.1",
        "EventTimeWatermarkSuite (SPARK-24699)",
        "count per 5 s window with a 10 s watermark; commit entries without watermark (`{}`)",
        (StateTable("op_0.default", STORE),),
        refusal=_no_schema("2.2 or 2.3"),
        spark_version="2.2 or 2.3",
    ),
    SparkGolden(
        "checkpoint-version-2.4.0-streaming-join", "2.4.0", "StreamingJoinSuite (SPARK-26187)",
        "stream-stream inner join on id within 5 s, join state format 1",
        _JOIN_TABLES,
        refusal=_no_schema("2.4", "join_0.left", "state/0/0/left-keyToNumValues"),
        spark_version="2.4",
        warnings=(JOIN_FORMAT_1,),
    ),
    SparkGolden(
        "checkpoint-version-2.4.5-for-compatibility-test-common-functions", "2.4.5",
        "StreamingStateStoreFormatCompatibilitySuite",
        "groupBy(value % 5).agg(avg, count, first, last, min, max, sum, collect_list,"
        " collect_set, ...), complete mode",
        (StateTable("op_0.default", STORE),),
        refusal=_no_schema("2.4"),
        spark_version="2.4",
    ),
    SparkGolden(
        "checkpoint-version-2.4.5-for-compatibility-test-deduplicate", "2.4.5",
        "StreamingStateStoreFormatCompatibilitySuite", "dropDuplicates() over all five columns",
        (StateTable("op_0.default", STORE),),
        refusal=_no_schema("2.4"),
        spark_version="2.4",
    ),
    SparkGolden(
        "checkpoint-version-2.4.5-for-compatibility-test-statistical-functions", "2.4.5",
        "StreamingStateStoreFormatCompatibilitySuite",
        "groupBy(value % 5).agg(kurtosis, skewness, approx_count_distinct, stddev, variance,"
        " covar, corr), complete mode",
        (StateTable("op_0.default", STORE),),
        refusal=_no_schema("2.4"),
        spark_version="2.4",
    ),
    SparkGolden(
        "checkpoint-version-2.4.5-for-compatibility-test-sum-decimal", "2.4.5",
        "StreamingStateStoreFormatCompatibilitySuite (SPARK-28067)",
        "groupBy(value % 2).agg(sum(CAST(value AS DECIMAL)), collect_list(value)), complete"
        " mode: Spark 3.1+ refuses its sum buffer on restart",
        (StateTable("op_0.default", STORE),),
        refusal=_refused(
            "SAVEPOINT_NO_STATE_SCHEMA",
            r"restart the query once on Spark 3\.1 or later.* \(unless it keeps a sum of decimals:"
            r" Spark 3\.1 and later refuse that old buffer on restart, SPARK-28067",
        ),
        restart=Restart("int", "sum_decimal", "complete", tuple((i,) for i in range(10, 20)), (),
                        spark_refuses=r"VALUE_ROW_FORMAT_VALIDATION_FAILURE"),  # fmt: skip
        spark_version="2.4",
    ),
    SparkGolden(
        "checkpoint-version-3.0.0-streaming-statestore-codec", "3.0.0",
        "StateStoreCompatibilitySuite (SPARK-33263)",
        "MemoryStream[Int].groupBy(value).agg(count(*)), update mode, 1 shuffle partition,"
        " before the state store codec setting existed",
        (StateTable("op_0.default", STORE),),
        refusal=_no_schema("3.0"),
        spark_version="3.0",
    ),
    SparkGolden(
        "checkpoint-version-3.1.0-flatmapgroupswithstate-repartition", "3.1.0",
        "FlatMapGroupsWithStateDistributionSuite (SPARK-38204)",
        "repartition(_1).groupByKey((_1, _2)).flatMapGroupsWithState(Update,"
        " ProcessingTimeTimeout) counting per key (Spark shuffles again by both key columns)",
        (StateTable("groupstate_0.default", STORE, ("_1", "_2"), "_1 = 'a' AND _2 = 'a'",
                    "('z', 'z', 5L, 11000L)"),),  # fmt: skip
        spark_version="3.1",
        partitioned_by=("_1", "_2"),
    ),
    SparkGolden(
        "checkpoint-version-3.2.0-deduplication-with-repartition", "3.2.0",
        "StreamingDeduplicationDistributionSuite (SPARK-38204)",
        "select(value AS key1, value * 2 AS key2, value * 3 AS value).repartition(key1)"
        ".dropDuplicates(key1, key2); its value schema records the whole row (SPARK-39650)",
        (_dedup("dedup_0", ("key1", "key2"), "key1 = 3 AND key2 = 6", "(9, 18)",
                reader_schema=_PLACEHOLDER.format("key1 INT, key2 INT")),),  # fmt: skip
        spark_version="3.2",
        partitioned_by=("key1",),
        restart=Restart("int", "dedup_key1_key2", "append", ((3,), (9,), (7,)),
                        ((3, 6, 9), (7, 14, 21))),  # fmt: skip
    ),
    SparkGolden(
        "checkpoint-version-3.2.0-flatmapgroupswithstate1-repartition", "3.2.0",
        "FlatMapGroupsWithStateDistributionSuite (SPARK-38204)",
        "as 3.1.0's, with an initial state (c, c, 2) (Spark shuffles again by both key columns)",
        (StateTable("groupstate_0.default", STORE, ("_1", "_2"), "_1 = 'c' AND _2 = 'c'",
                    "('z', 'z', 5L, 11000L)"),),  # fmt: skip
        spark_version="3.2",
        partitioned_by=("_1", "_2"),
    ),
    SparkGolden(
        "checkpoint-version-3.2.0-flatmapgroupswithstate2-repartition", "3.2.0",
        "FlatMapGroupsWithStateDistributionSuite (SPARK-38204)",
        "as 3.1.0's (Spark shuffles again by both key columns)",
        (StateTable("groupstate_0.default", STORE, ("_1", "_2"), "_1 = 'a' AND _2 = 'a'",
                    "('z', 'z', 5L, 11000L)"),),  # fmt: skip
        spark_version="3.2",
        partitioned_by=("_1", "_2"),
    ),
    SparkGolden(
        "checkpoint-version-3.2.0-session-window-with-repartition", "3.2.0",
        "StreamingSessionWindowDistributionSuite (SPARK-38204)",
        "explode words as sessionId, repartition(userId).groupBy(session_window(eventTime,"
        " 10 s), sessionId, userId).count(), watermark 30 s, append mode",
        (StateTable("session_0.default", STORE, ("sessionId", "userId", "sessionStartTime"),
                    refused_write=_read_only("session window aggregation", "session_0")),),
        spark_version="3.2",
        partitioned_by=("userId",),
    ),
    SparkGolden(
        "checkpoint-version-3.2.0-streaming-aggregate-with-repartition", "3.2.0",
        "StreamingAggregationDistributionSuite (SPARK-38204)",
        "select(value AS key1, value * 2 AS key2, value * 3 AS value).repartition(key1)"
        ".groupBy(key1, key2).agg(count(*)), update mode",
        (_agg(("key1", "key2"), "key1 = 3 AND key2 = 6", "(9, 18, 7L)"),),  # fmt: skip
        spark_version="3.2",
        partitioned_by=("key1",),
        restart=Restart("int", "agg_key1_key2", "update", ((2,), (3,), (9,)),
                        ((2, 4, 2), (3, 6, 1), (9, 18, 8))),  # fmt: skip
    ),
    SparkGolden(
        "checkpoint-version-3.3.0-streaming-deduplication", "3.3.0",
        "StreamingDeduplicationSuite (SPARK-39650)",
        "MemoryStream[(String, Int)].dropDuplicates(_1); its value schema records the whole row"
        " while its values are placeholders",
        (_dedup("dedup_0", ("_1",), "_1 = 'a'", "('z')",
                reader_schema=_PLACEHOLDER.format("_1 STRING")),),  # fmt: skip
        spark_version="3.5 or earlier",
        restart=_DEDUP_351_RESTART,
    ),
    SparkGolden(
        "checkpoint-version-3.5.1-streaming-deduplication", "3.5.1",
        "StreamingDeduplicationSuite (SPARK-39650), OffsetSeqLogSuite",
        "MemoryStream[(String, Int)].dropDuplicates(_1)",
        (_dedup("dedup_0", ("_1",), "_1 = 'a'", "('z')"),),
        spark_version="3.5 or earlier",
        restart=_DEDUP_351_RESTART,
        slow=False,
    ),
    SparkGolden(
        "checkpoint-version-3.5.1-streaming-join", "3.5.1", "StreamingJoinSuite",
        "stream-stream inner join of a MemoryStream[(Int, Long)] with itself (leftId,"
        " leftTime) x (rightId, rightTime), join state format 2; one batch",
        _JOIN_351_EDIT,
        spark_version="3.5 or earlier",
        restart=Restart("int,bigint", "self_join", "append", ((98, 21), (2, 2)),
                        ((98, 20, 98, 21), (98, 21, 98, 21), (2, 2, 2, 2), (2, 2, 2, 2))),
        # StateDataSourceTestBase's join of 3.5 (the right side's 2 is still there)
    ),
    *_v40("hdfs"),
    *_v40("rocksdb"),
    SparkGolden(f"{_V2}/dedup", "4.0.0", _STATE_READ_SUITE, _DEDUP_40 + _V2_NOTE,
                (_dedup("dedup_0", ("_1",), "_1 = 3", "(9)"),), spark_version="4.0",
                restart=Restart(**{**_DEDUP_RESTART.__dict__, "format_version": 2})),
    SparkGolden(f"{_V2}/join1", "4.0.0", _STATE_READ_SUITE, _JOIN_40.format(1) + _V2_NOTE,
                _JOIN_EDIT, spark_version="4.0", warnings=(JOIN_FORMAT_1,),
                restart=Restart(**{**_JOIN_RESTART.__dict__, "format_version": 2})),
    SparkGolden(f"{_V2}/join2", "4.0.0", _STATE_READ_SUITE, _JOIN_40.format(2) + _V2_NOTE,
                _JOIN_EDIT, spark_version="4.0",
                restart=Restart(**{**_JOIN_RESTART.__dict__, "format_version": 2})),
    SparkGolden(f"{_V2}/limit", "4.0.0", _STATE_READ_SUITE, _LIMIT_40 + _V2_NOTE, _LIMIT,
                spark_version="4.0"),
    SparkGolden(
        "checkpoint-version-4.0.0-tws-avro", "4.0.0", "OffsetSeqLogSuite",
        "transformWithState with a ValueState countState, avro state encoding, by a pre-release"
        " build (December 2024); offsets/ edited by hand after it was written (their Hadoop"
        " .crc files no longer match)",
        (StateTable("tws_0.countState", {"stateVarName": "countState"}),),
        refusal=_PRE_RELEASE,
        spark_version="4.0",
        warnings=(STALE_OFFSETS_1,),
    ),
    SparkGolden(
        "checkpoint-version-4.0.0-tws-unsaferow", "4.0.0", "OffsetSeqLogSuite",
        "transformWithState with a ValueState countState, unsaferow state encoding, by a"
        " pre-release build (December 2024); offsets/ edited by hand after it was written"
        " (their Hadoop .crc files no longer match)",
        (StateTable("tws_0.countState", {"stateVarName": "countState"}),),
        refusal=_PRE_RELEASE,
        spark_version="4.0",
        warnings=(STALE_OFFSETS_1,),
    ),
    SparkGolden(
        "checkpoint-version-4.0.1-dedup-spark-53942", "4.0.1", "StreamingQuerySuite (SPARK-53942)",
        "dropDuplicates(key1, key2) of a MemoryStream (key2 = 2 * key1), one batch",
        (_dedup("dedup_0", ("key1", "key2"), "key1 = 2 AND key2 = 4", "(9, 18)"),),
        spark_version="4.0",
        restart=Restart("int", "dedup_pairs", "append", ((2,), (9,), (7,)), ((2, 4), (7, 14))),
    ),
)  # fmt: skip
"""Every checkpoint of ``tests/golden/spark``, in folder order."""


def outcome(golden: SparkGolden) -> str:
    """What the tool does with it, in a few words: the refusal's class, or what it reads,
    edits and restarts."""
    if golden.refusal is not None:
        return f"refused: {golden.refusal.error_class}"
    if not golden.tables:
        return "reads (no stateful operator)"
    edited = [t.name for t in golden.tables if t.delete is not None]
    parts = [f"reads {', '.join(t.name for t in golden.tables)}"]
    if edited:
        parts.append(f"edits {', '.join(edited)}")
    if golden.restart is not None:
        parts.append("restarts")
    if golden.partitioned_by:
        parts.append(f"keys placed by {', '.join(golden.partitioned_by)} (non-strict layout)")
    return "; ".join(parts)


def matrix_rows() -> list[str]:
    """The outcome matrix as Markdown table rows, a header first."""
    rows = ["| checkpoint | written by | query | outcome |", "|---|---|---|---|"]
    for g in GOLDENS:
        rows.append(f"| {g.id} | Spark {g.version} | {g.query} | {outcome(g)} |")
    return rows


README_START, README_END = "<!-- spark-goldens -->", "<!-- /spark-goldens -->"
"""The README markers around :func:`readme_rows`' table."""


def readme_rows() -> list[str]:
    """The README's table: one row per checkpoint, the release that wrote it and the outcome
    the suite asserts (``test_spark_goldens.py``)."""
    rows = ["| Spark's golden checkpoint | written by | outcome |", "|---|---|---|"]
    rows += [f"| {g.id} | {g.version} | {outcome(g)} |" for g in GOLDENS]
    return rows


def readme_table(text: str) -> str:
    """The table between the README markers."""
    return text.split(README_START, 1)[1].split(README_END, 1)[0].strip()


def write_readme(readme: Path) -> None:
    """Replace the table between the README markers with :func:`readme_rows`."""
    head, rest = readme.read_text().split(README_START, 1)
    tail = rest.split(README_END, 1)[1]
    table = "\n".join(readme_rows())
    readme.write_text(f"{head}{README_START}\n{table}\n{README_END}{tail}")


def fetch(version: str, into: Path = SPARK_GOLDEN_DIR) -> list[str]:
    """Download spark-sql's tests jar of ``version`` and replace the checkpoint folders of
    ``into`` (and its LICENSE and NOTICE) with the jar's; the folder names written."""
    url = f"{MAVEN}/{version}/spark-sql_2.13-{version}-tests.jar"
    with urllib.request.urlopen(url, timeout=300) as response:  # noqa: S310 - a fixed https URL
        jar = zipfile.ZipFile(io.BytesIO(response.read()))
    prefix = "structured-streaming/"
    names = sorted({n[len(prefix):].split("/")[0] for n in jar.namelist()
                    if n.startswith(prefix + "checkpoint-version-")})  # fmt: skip
    into.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.rmtree(into / name, ignore_errors=True)
    for entry in jar.infolist():
        if entry.is_dir() or not entry.filename.startswith(prefix + "checkpoint-version-"):
            continue
        target = into / entry.filename[len(prefix) :]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(jar.read(entry))
    for legal in ("LICENSE", "NOTICE"):
        if f"META-INF/{legal}" in jar.namelist():
            (into / legal).write_bytes(jar.read(f"META-INF/{legal}"))
    return names


def main(argv: list[str] | None = None) -> int:
    """Print the outcome matrix; with ``--fetch VERSION``, refresh the folders first; with
    ``--readme``, write the README's table."""
    parser = argparse.ArgumentParser(prog="python -m tests.compat.spark_goldens")
    parser.add_argument("--fetch", metavar="VERSION", help="Spark release whose tests jar to use")
    parser.add_argument("--into", type=Path, default=SPARK_GOLDEN_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--readme", action="store_true", help="write the README's table")
    args = parser.parse_args(argv)
    if args.fetch:
        names = fetch(args.fetch, args.into)
        print(f"{len(names)} checkpoint folders from spark-sql {args.fetch}'s tests jar in"
              f" {args.into}", file=sys.stderr)  # fmt: skip
    if args.readme:
        write_readme(REPO_ROOT / "README.md")
    print("\n".join(matrix_rows()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
