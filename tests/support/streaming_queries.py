"""Real, restartable stateful Structured Streaming queries that build checkpoints for the tests.

Every query reads JSON-lines files from ``<root>/input`` (the join reads ``<root>/input/left``
and ``<root>/input/right``) with ``maxFilesPerTrigger=1``, so each input file is one micro-batch,
runs with ``Trigger.AvailableNow`` and writes its checkpoint to ``<root>/checkpoint``. The rows a
run emits are collected by ``foreachBatch`` and returned by :meth:`StreamingQuery.run`, batch after
batch, each batch sorted by the kind's key columns.

Single-stream kinds (all but ``join``) share one input row shape::

    {"event_id": int, "user": str, "item": str, "amount": int, "ts": "2024-01-01 10:00:00"}

``ts`` is read as a timestamp in UTC: :meth:`StreamingQuery.run` sets the session time zone to UTC
for the run (and restores it), so event times, watermarks and timers are the same on every machine
(``2024-01-01 10:00:00`` is 1704103200000 ms). Timestamps in output rows are strings in UTC.

Default data (two files, i.e. batches 0 and 1, then the restart wave):

    batch 0:  e1 alice apple 10 10:00 | e2 bob pear 5 10:01 | e3 alice pear 7 10:02
    batch 1:  e4 carol apple 3 10:06 | e2 bob pear 5 10:01 (a retransmitted duplicate)
    restart:  e5 alice apple 1 10:07 | e3 alice pear 7 10:02 (duplicate) | e6 dave plum 8 10:08

The session is shared: :meth:`StreamingQuery.run` sets the state store provider, RocksDB changelog
checkpointing, 4 shuffle partitions, the UTC time zone and ``noDataMicroBatches.enabled=false``
before it starts the query and restores the previous values after it. The first run records provider
and partitions in the checkpoint's offset log; later runs use the recorded values (changelog
checkpointing and no-data batches are not recorded, they come from the session at every run).
Without no-data batches every input file is exactly one batch: the default build commits batches 0
and 1 for every kind, a restart with one more file commits batch 2.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from pyspark import cloudpickle  # noqa: E402
from pyspark.sql import DataFrame, SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

# Python workers cannot import this test module: ship its functions by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

PROVIDERS: dict[str, str] = {
    "hdfs": "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
    "rocksdb": "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
}
"""Provider short name -> state store provider class."""

EVENTS_SCHEMA = "event_id long, user string, item string, amount long, ts timestamp"
"""Schema of the single-stream input rows."""

SIDE_SCHEMA = "key string, ts timestamp, value long"
"""Schema of each join side's input rows."""

RUN_CONFS = {
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "true",
    "spark.sql.streaming.noDataMicroBatches.enabled": "false",
}
PROVIDER_CONF = "spark.sql.streaming.stateStore.providerClass"


def _event(event_id: int, user: str, item: str, amount: int, clock: str) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "user": user,
        "item": item,
        "amount": amount,
        "ts": f"2024-01-01 {clock}:00",
    }


def _side(side: str, key: str, clock: str, value: int) -> dict[str, Any]:
    return {"side": side, "key": key, "ts": f"2024-01-01 {clock}:00", "value": value}


_EVENTS_INITIAL = (
    [
        _event(1, "alice", "apple", 10, "10:00"),
        _event(2, "bob", "pear", 5, "10:01"),
        _event(3, "alice", "pear", 7, "10:02"),
    ],
    [_event(4, "carol", "apple", 3, "10:06"), _event(2, "bob", "pear", 5, "10:01")],
)
_EVENTS_RESTART = [
    _event(5, "alice", "apple", 1, "10:07"),
    _event(3, "alice", "pear", 7, "10:02"),
    _event(6, "dave", "plum", 8, "10:08"),
]

_JOIN_INITIAL = (
    [
        _side("left", "a", "10:00", 1),
        _side("left", "b", "10:01", 2),
        _side("right", "a", "10:03", 10),
    ],
    [
        _side("left", "c", "10:02", 3),
        _side("right", "b", "10:04", 20),
        _side("right", "d", "10:05", 40),
    ],
)
_JOIN_RESTART = [_side("right", "c", "10:06", 30), _side("left", "d", "10:07", 4)]


@contextmanager
def session_confs(spark: SparkSession, confs: dict[str, str]) -> Iterator[None]:
    """Set ``confs`` in the session for the block, then restore what was there before."""
    saved = {key: spark.conf.get(key, None) for key in confs}
    for key, value in confs.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


def _events(spark: SparkSession, input_dir: Path) -> DataFrame:
    return (
        spark.readStream.schema(EVENTS_SCHEMA).option("maxFilesPerTrigger", 1).json(str(input_dir))
    )


def agg_query(spark: SparkSession, input_dir: Path) -> DataFrame:
    """Running count and sum per user: ``groupBy("user").agg(count, sum)``, update mode.

    Operator ``stateStoreSave``; state key ``struct<user>``, value ``struct<cnt, total>``.
    Output rows ``{"user", "cnt", "total"}``; the default run emits
    batch 0: alice 2 17, bob 1 5; batch 1: bob 2 10, carol 1 3.
    The restart wave emits alice 4 25, dave 1 8.
    """
    return (
        _events(spark, input_dir)
        .groupBy("user")
        .agg(F.count("*").alias("cnt"), F.sum("amount").alias("total"))
    )


def repartitioned_agg_query(spark: SparkSession, input_dir: Path) -> DataFrame:
    """Count and sum per (user, item) of input repartitioned by user:
    ``repartition("user").groupBy("user", "item").agg(count, sum)``, update mode.

    Run with ``NON_STRICT_CONFS`` (as every query started before Spark 3.3 ran), the stateful
    operator keeps its input's clustering: the state of (user, item) lives in partition
    ``pmod(hash(user), n)``, not ``pmod(hash(user, item), n)``. Output rows
    ``{"user", "item", "cnt", "total"}``.
    """
    return (
        _events(spark, input_dir)
        .repartition("user")
        .groupBy("user", "item")
        .agg(F.count("*").alias("cnt"), F.sum("amount").alias("total"))
    )


NON_STRICT_CONFS = {"spark.sql.streaming.statefulOperator.useStrictDistribution": "false"}
"""What a query started before Spark 3.3 runs with (its offset log records no such setting)."""


def window_agg_query(spark: SparkSession, input_dir: Path) -> DataFrame:
    """Count per user and 5-minute event-time window, watermark 10 minutes on ``ts``, update mode.

    Output rows ``{"window_start", "window_end", "user", "count"}`` (times as UTC strings);
    the default run emits batch 0: [10:00,10:05) alice 2, bob 1; batch 1: [10:00,10:05) bob 2,
    [10:05,10:10) carol 1. The restart wave (watermark 09:56) emits [10:00,10:05) alice 3,
    [10:05,10:10) alice 1, dave 1.
    """
    counts = (
        _events(spark, input_dir)
        .withWatermark("ts", "10 minutes")
        .groupBy(F.window("ts", "5 minutes"), "user")
        .count()
    )
    return counts.select(
        F.col("window.start").cast("string").alias("window_start"),
        F.col("window.end").cast("string").alias("window_end"),
        "user",
        "count",
    )


def dedup_query(spark: SparkSession, input_dir: Path) -> DataFrame:
    """``dropDuplicates(["event_id"])`` without watermark, append mode.

    Output rows are the first sighting of each event: ``{"event_id", "user", "item", "amount",
    "ts"}``. The default run emits events 1, 2, 3 then 4 (the retransmitted 2 is dropped);
    the restart wave emits 5 and 6 (the duplicate 3 is dropped by the state).
    """
    return (
        _events(spark, input_dir)
        .dropDuplicates(["event_id"])
        .withColumn("ts", F.col("ts").cast("string"))
    )


def dedup_watermark_query(spark: SparkSession, input_dir: Path) -> DataFrame:
    """``dropDuplicates(["event_id", "ts"])`` with a 2-minute watermark on ``ts``, append mode:
    the state of an event goes once the watermark passes its time.

    Output rows as ``dedup_query``'s: the default run emits events 1, 2, 3 then 4, and leaves
    the state of events 2, 3 and 4 with the watermark for the next batch at 10:04 (event 1 went
    in batch 1, at watermark 10:00); the restart wave emits 5 and 6 (the late duplicate 3 is
    dropped by the watermark) and evicts 2 and 3.
    """
    return (
        _events(spark, input_dir)
        .withWatermark("ts", "2 minutes")
        .dropDuplicates(["event_id", "ts"])
        .withColumn("ts", F.col("ts").cast("string"))
    )


def dedup_agg_query(spark: SparkSession, input_dir: Path) -> DataFrame:
    """``dropDuplicates(["event_id"])`` in front of the running count and sum per user: two
    stateful operators (``dedup_1`` feeding ``agg_0``), update mode.

    Output rows ``{"user", "cnt", "total"}``: as ``agg_query``, but retransmitted events are
    counted once: batch 0: alice 2 17, bob 1 5; batch 1: carol 1 3. The restart wave emits
    alice 3 18, dave 1 8.
    """
    return (
        _events(spark, input_dir)
        .dropDuplicates(["event_id"])
        .groupBy("user")
        .agg(F.count("*").alias("cnt"), F.sum("amount").alias("total"))
    )


def join_query(spark: SparkSession, input_dir: Path) -> DataFrame:
    """Stream-stream inner join of ``input/left`` and ``input/right`` on ``key``, append mode.

    Input rows ``{"side": "left"|"right", "key", "ts", "value"}`` (``side`` picks the folder and is
    not written). Both sides have a 10-minute watermark; the condition is ``left.key = right.key``
    and ``right.ts`` within 5 minutes of ``left.ts``. Output rows ``{"key", "left_ts",
    "left_value", "right_ts", "right_value"}``; the default run emits a (batch 0) then b (batch 1,
    left b was in state); the restart wave emits c (left c from state) and d (right d from state).
    """

    def side(name: str) -> DataFrame:
        return (
            spark.readStream.schema(SIDE_SCHEMA)
            .option("maxFilesPerTrigger", 1)
            .json(str(input_dir / name))
            .select(
                F.col("key").alias(f"{name}_key"),
                F.col("ts").alias(f"{name}_ts"),
                F.col("value").alias(f"{name}_value"),
            )
            .withWatermark(f"{name}_ts", "10 minutes")
        )

    left, right = side("left"), side("right")
    joined = left.join(
        right,
        F.expr(
            "left_key = right_key AND right_ts BETWEEN left_ts - INTERVAL 5 MINUTES"
            " AND left_ts + INTERVAL 5 MINUTES"
        ),
    )
    return joined.select(
        F.col("left_key").alias("key"),
        F.col("left_ts").cast("string"),
        "left_value",
        F.col("right_ts").cast("string"),
        "right_value",
    )


def count_and_sum(key: tuple, frames: Iterator[Any], state: Any) -> Iterator[Any]:
    """The ``pandas_state`` query's state function: running count and total of ``amount``."""
    import pandas as pd

    cnt, total = state.get if state.exists else (0, 0)
    for frame in frames:
        cnt, total = cnt + len(frame), total + int(frame["amount"].sum())
    state.update((cnt, total))
    yield pd.DataFrame({"user": [key[0]], "cnt": [cnt], "total": [total]})


def pandas_state_query(spark: SparkSession, input_dir: Path) -> DataFrame:
    """``applyInPandasWithState`` keeping a running count and total per user, Update, NoTimeout.

    State ``struct<cnt long, total long>`` per user (read back as ``value.groupState``).
    Output rows ``{"user", "cnt", "total"}``, same numbers as ``agg``.
    """
    from pyspark.sql.streaming.state import GroupStateTimeout

    return (
        _events(spark, input_dir)
        .groupBy("user")
        .applyInPandasWithState(
            count_and_sum,
            "user string, cnt long, total long",
            "cnt long, total long",
            "Update",
            GroupStateTimeout.NoTimeout,
        )
    )


def tracker_class() -> type:
    """The StatefulProcessor of ``tws_query`` (see there), as a class. A timer that fires emits
    ``{"user": <user>, "count": -1}``."""
    import pandas as pd
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    class Tracker(StatefulProcessor):
        def init(self, handle: Any) -> None:
            self.handle = handle
            self.count = handle.getValueState("count", "count long")
            self.history = handle.getListState("history", "amount long")
            self.items = handle.getMapState("items", "item string", "count long")

        def handleInputRows(
            self, key: tuple, rows: Iterator[Any], timerValues: Any
        ) -> Iterator[Any]:
            count = self.count.get()[0] if self.count.exists() else 0
            latest = 0
            for frame in rows:
                count += len(frame)
                self.history.appendList([(int(a),) for a in frame["amount"]])
                for item in frame["item"]:
                    seen = self.items.getValue((item,))
                    self.items.updateValue((item,), ((seen[0] if seen else 0) + 1,))
                latest = max(latest, int(frame["ts_ms"].max()))
            self.count.update((count,))
            timers = list(self.handle.listTimers())
            due = max([latest + 3_600_000, *timers])
            for timer in timers:
                if timer != due:
                    self.handle.deleteTimer(timer)
            if due not in timers:
                self.handle.registerTimer(due)
            yield pd.DataFrame({"user": [key[0]], "count": [count]})

        def close(self) -> None:
            pass

        def handleExpiredTimer(  # noqa: N802 - pyspark's names
            self,
            key: tuple,
            timerValues: Any,
            expiredTimerInfo: Any,  # noqa: N803
        ) -> Iterator[Any]:
            yield pd.DataFrame({"user": [key[0]], "count": [-1]})

    return Tracker


def tws_query(spark: SparkSession, input_dir: Path) -> DataFrame:
    """``transformWithStateInPandas`` per user in EventTime mode (watermark 10 min on ``ts``),
    Update mode.

    State variables: ValueState ``count`` (``count long``), ListState ``history`` (``amount long``,
    every amount seen), MapState ``items`` (key ``item string`` -> value ``count long``) and one
    event-time timer per user at its latest event time + 1 hour (never fires with the default
    data; e.g. alice's is 1704106920000 after the default run). The processor sees the input
    columns plus ``ts_ms`` (``unix_millis(ts)``). Output rows ``{"user", "count"}``, one per user
    with input in the batch; counts as in ``agg``. RocksDB only.
    """
    events = (
        _events(spark, input_dir)
        .withWatermark("ts", "10 minutes")
        .withColumn("ts_ms", F.unix_millis("ts"))
    )
    return events.groupBy("user").transformWithStateInPandas(
        tracker_class()(), "user string, count long", "Update", "EventTime"
    )


def tws_ttl_query(spark: SparkSession, input_dir: Path) -> DataFrame:
    """``transformWithStateInPandas`` per user with a TTL of one hour (processing time) on its
    ValueState ``count`` (``count long``), ListState ``amounts`` (``amount long``)
    mode, and MapState ``items`` (``item string`` -> ``seen long``) with the same TTL. Output
    rows ``{"user", "count"}``: rows seen per user while its count lives (the default run:
    alice 2, bob 1, then bob 2, carol 1). RocksDB only.
    """
    import pandas as pd
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    hour = 3_600_000

    class Expiring(StatefulProcessor):
        def init(self, handle: Any) -> None:
            self.count = handle.getValueState("count", "count long", hour)
            self.amounts = handle.getListState("amounts", "amount long", hour)
            self.items = handle.getMapState("items", "item string", "seen long", hour)

        def handleInputRows(
            self, key: tuple, rows: Iterator[Any], timerValues: Any
        ) -> Iterator[Any]:
            count = self.count.get()[0] if self.count.exists() else 0
            for frame in rows:
                count += len(frame)
                self.amounts.appendList([(int(a),) for a in frame["amount"]])
                for item in frame["item"]:
                    self.items.updateValue((item,), (1,))
            self.count.update((count,))
            yield pd.DataFrame({"user": [key[0]], "count": [count]})

        def close(self) -> None:
            pass

    return (
        _events(spark, input_dir)
        .groupBy("user")
        .transformWithStateInPandas(
            Expiring(), "user string, count long", "Update", "ProcessingTime"
        )
    )


@dataclass(frozen=True)
class Kind:
    """How one kind of stateful query is built and fed."""

    query: Callable[[SparkSession, Path], DataFrame]
    """Builds the streaming DataFrame (stateful operator plus output projection) from input/."""
    output_mode: str
    order: tuple[str, ...]
    """Output columns that sort the rows of one batch."""
    initial: tuple[list[dict], ...]
    """Default input files of the first run, one micro-batch each."""
    restart: list[dict]
    """Default input of the second wave, one file."""
    sides: tuple[str, ...] = ()
    """Input subfolders, picked by each row's ``side`` (join only)."""
    fixture: bool = True
    """Built once per test session on every provider (``CASES``); else built by the tests
    that need it."""


KINDS: dict[str, Kind] = {
    "agg": Kind(agg_query, "update", ("user",), _EVENTS_INITIAL, _EVENTS_RESTART),
    "window_agg": Kind(
        window_agg_query, "update", ("window_start", "user"), _EVENTS_INITIAL, _EVENTS_RESTART
    ),
    "dedup": Kind(dedup_query, "append", ("event_id",), _EVENTS_INITIAL, _EVENTS_RESTART),
    "join": Kind(
        join_query,
        "append",
        ("key", "left_ts", "right_ts"),
        _JOIN_INITIAL,
        _JOIN_RESTART,
        sides=("left", "right"),
    ),
    "pandas_state": Kind(pandas_state_query, "update", ("user",), _EVENTS_INITIAL, _EVENTS_RESTART),
    "tws": Kind(tws_query, "update", ("user",), _EVENTS_INITIAL, _EVENTS_RESTART),
    "tws_ttl": Kind(
        tws_ttl_query, "update", ("user",), _EVENTS_INITIAL, _EVENTS_RESTART, fixture=False
    ),
    "dedup_watermark": Kind(
        dedup_watermark_query,
        "append",
        ("event_id",),
        _EVENTS_INITIAL,
        _EVENTS_RESTART,
        fixture=False,
    ),
    "dedup_agg": Kind(
        dedup_agg_query, "update", ("user",), _EVENTS_INITIAL, _EVENTS_RESTART, fixture=False
    ),
    "repartitioned_agg": Kind(
        repartitioned_agg_query,
        "update",
        ("user", "item"),
        _EVENTS_INITIAL,
        _EVENTS_RESTART,
        fixture=False,
    ),
}
"""Registry: kind name -> how to build and feed it."""

SUPPORTED: dict[str, tuple[str, ...]] = {
    kind: ("rocksdb",) if kind.startswith("tws") else ("hdfs", "rocksdb") for kind in KINDS
}
"""Kind -> state store providers Spark allows for it (transformWithState needs RocksDB)."""

CASES: list[tuple[str, str]] = [
    (kind, provider)
    for kind, providers in SUPPORTED.items()
    if KINDS[kind].fixture
    for provider in providers
]
"""Every (kind, provider) pair the test session builds a checkpoint for."""


UIDS: dict[str, str] = {
    "agg": "agg_0", "window_agg": "agg_0", "dedup": "dedup_0", "join": "join_0",
    "pandas_state": "groupstate_0", "tws": "tws_0", "dedup_agg": "agg_0",
    "tws_ttl": "tws_0", "repartitioned_agg": "agg_0", "dedup_watermark": "dedup_0",
}  # fmt: skip
"""Kind -> the uid (namespace) of its stateful operator in the savepoint catalog."""


def restart_rows(kind: str) -> list[dict]:
    """The kind's default second-wave input, to feed with ``add_input`` after a restart."""
    return [dict(row) for row in _kind(kind).restart]


@dataclass
class StreamingQuery:
    """One restartable stateful streaming query over a folder of JSON input files."""

    kind: str
    provider: str
    root: Path
    confs: dict[str, str] = field(default_factory=dict)
    """Session settings of every run on top of the defaults (e.g. RocksDB changelog off)."""
    location: str | None = None
    """The checkpoint's URI when it lives elsewhere than ``checkpoint`` (``hdfs://...``,
    ``s3a://...``); the input stays local under ``root``."""

    @property
    def checkpoint(self) -> Path:
        """The query's checkpoint folder."""
        return self.root / "checkpoint"

    @property
    def uid(self) -> str:
        """The namespace of the query's stateful operator in a savepoint catalog."""
        return UIDS[self.kind]

    def copy(self, root: Path) -> StreamingQuery:
        """The same query with a private copy of this checkpoint under ``root`` (fresh input):
        safe to edit and restart while this one stays as it is."""
        shutil.copytree(self.checkpoint, root / "checkpoint")
        return StreamingQuery(self.kind, self.provider, root, dict(self.confs))

    def with_checkpoint(self, folder: Path) -> StreamingQuery:
        """The same query (same input folder) with its checkpoint at ``folder``: a copy of this
        checkpoint restarts there on this input (the file source's log names its files)."""
        return StreamingQuery(self.kind, self.provider, self.root, dict(self.confs),
                              location=str(folder))  # fmt: skip

    def restart(self, spark: SparkSession) -> list[dict]:
        """Feed the kind's second-wave input (``restart_rows``) and run; the rows emitted."""
        self.add_input(restart_rows(self.kind))
        return self.run(spark)

    @property
    def input_dir(self) -> Path:
        """The input folder (the join reads its ``left`` and ``right`` subfolders)."""
        return self.root / "input"

    def add_input(self, rows: list[dict]) -> None:
        """Write ``rows`` as one new JSON-lines file, which the next run reads as one micro-batch.

        For ``join`` each row carries ``"side": "left" | "right"``; the rows of each side go to
        one new file in that side's folder (the ``side`` field itself is not written).
        """
        sides = _kind(self.kind).sides
        if not sides:
            write_file(self.input_dir, rows)
            return
        unknown = {row.get("side") for row in rows} - set(sides)
        if unknown:
            raise ValueError(f"join rows need 'side' in {sides}, got {sorted(map(str, unknown))}")
        for side in sides:
            picked = [
                {k: v for k, v in row.items() if k != "side"} for row in rows if row["side"] == side
            ]
            if picked:
                write_file(self.input_dir / side, picked)

    def run(self, spark: SparkSession) -> list[dict]:
        """Run the query with Trigger.AvailableNow until it stops; return the rows it emitted in
        this run (collected via foreachBatch that consumes the batch DataFrame), as plain dicts,
        batch after batch, each batch sorted by the kind's key columns."""
        return run_together(spark, [self])[0]

    def collector(self) -> tuple[list[dict], Callable[[DataFrame, int], None]]:
        """A list and the ``foreachBatch`` function that appends each batch's rows to it, as
        plain dicts sorted by the kind's key columns."""
        order = _kind(self.kind).order
        emitted: list[dict] = []

        def collect(batch: DataFrame, batch_id: int) -> None:
            rows = [row.asDict(recursive=True) for row in batch.collect()]
            emitted.extend(sorted(rows, key=lambda r: tuple(r[c] for c in order)))

        return emitted, collect

    def _confs(self) -> dict[str, str]:
        return {**RUN_CONFS, PROVIDER_CONF: PROVIDERS[self.provider], **self.confs}

    def settings(self) -> dict[str, str]:
        """The session settings every run of the query uses (``start`` leaves them set: wrap
        it in ``session_confs(spark, query.settings())`` to restore the session's)."""
        return self._confs()

    def start(
        self,
        spark: SparkSession,
        collect: Callable[[DataFrame, int], None],
        name: str | None = None,
        **trigger: Any,
    ) -> Any:
        """Start the query with ``trigger`` (``DataStreamWriter.trigger`` arguments) and the
        run settings (left set in the session); returns the running StreamingQuery, named
        ``name`` (default ``<kind>_<provider>``: one of a name runs at a time in a session)."""
        kind = _kind(self.kind)
        for key, value in self._confs().items():
            spark.conf.set(key, value)
        for side in kind.sides:
            (self.input_dir / side).mkdir(parents=True, exist_ok=True)
        return (
            kind.query(spark, self.input_dir)
            .writeStream.queryName(name or f"{self.kind}_{self.provider}")
            .outputMode(kind.output_mode)
            .foreachBatch(collect)
            .option("checkpointLocation", self.location or str(self.checkpoint))
            .trigger(**trigger)
            .start()
        )


def run_together(spark: SparkSession, queries: list[StreamingQuery]) -> list[list[dict]]:
    """Run ``queries`` at once (each with Trigger.AvailableNow, as :meth:`StreamingQuery.run`)
    until all stop: many short restarts take a fraction of their time one after another. They
    must share their settings (one session holds them). Returns each one's emitted rows.

    Raises RuntimeError naming each query that failed (after all stopped)."""
    settings = {frozenset(q.settings().items()) for q in queries}
    if len(settings) > 1:
        raise ValueError("queries run together must share their settings")
    collectors = [q.collector() for q in queries]
    failed = []
    with session_confs(spark, queries[0].settings() if queries else {}):
        runs = [
            query.start(spark, collect, name=None if len(queries) == 1 else f"run_together_{i}",
                        availableNow=True)
            for i, (query, (_, collect)) in enumerate(zip(queries, collectors, strict=True))
        ]  # fmt: skip
        for query, run in zip(queries, runs, strict=True):
            run.awaitTermination()
            if run.exception() is not None:
                where = query.location or query.root
                failed.append(f"{query.kind}/{query.provider} failed at {where}: {run.exception()}")
    wait_for_listeners(spark)
    if failed:
        raise RuntimeError("; ".join(failed))
    return [emitted for emitted, _ in collectors]


def wait_for_listeners(spark: SparkSession) -> None:
    """Until Spark has delivered its listener events: a query's stop reaches the tool's run
    record after ``awaitTermination()`` returns, and a test may remove the checkpoint next."""
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(30_000)


def build(
    spark: SparkSession,
    kind: str,
    provider: str,
    root: Path,
    rows: list[dict] | None = None,
    confs: dict[str, str] | None = None,
) -> StreamingQuery:
    """Create root, write the kind's default initial input (or `rows`), run once, return the query.

    The default input is two files (batches 0 and 1); ``rows`` is written as one file (batch 0).
    ``confs`` are session settings for every run of the query (see ``StreamingQuery.confs``).
    Raises ValueError for an unknown kind or a provider the kind does not support.
    """
    _kind(kind)
    if provider not in SUPPORTED[kind]:
        raise ValueError(
            f"kind {kind!r} supports providers {SUPPORTED[kind]}, not {provider!r}"
            f" (supported: {SUPPORTED})"
        )
    query = _with_initial_input(StreamingQuery(kind, provider, Path(root), dict(confs or {})), rows)
    query.run(spark)
    return query


def build_all(
    spark: SparkSession, roots: dict[tuple[str, str], Path]
) -> dict[tuple[str, str], StreamingQuery]:
    """:func:`build` of each (kind, provider) of ``roots`` at its folder, with the default
    input; the queries of one provider run at once (:func:`run_together`), which takes a
    fraction of running them one after another."""
    queries = {
        (kind, provider): _with_initial_input(StreamingQuery(kind, provider, Path(root)), None)
        for (kind, provider), root in roots.items()
    }
    for provider in {provider for _, provider in queries}:
        run_together(spark, [q for (_, p), q in queries.items() if p == provider])
    return queries


def _with_initial_input(query: StreamingQuery, rows: list[dict] | None) -> StreamingQuery:
    """``query`` with its kind's default initial input written (or ``rows``, as one file)."""
    query.input_dir.mkdir(parents=True, exist_ok=True)
    for file_rows in KINDS[query.kind].initial if rows is None else (rows,):
        query.add_input([dict(row) for row in file_rows])
    return query


def query_for(kind: str) -> Callable[[SparkSession, Path], DataFrame]:
    """The function that builds the kind's streaming DataFrame from a session and input folder."""
    return _kind(kind).query


def _kind(kind: str) -> Kind:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; known kinds: {sorted(KINDS)}")
    return KINDS[kind]


def write_file(folder: Path, rows: list[dict]) -> None:
    """Write rows as the next ``part-NNNNN.json`` with a modification time after all earlier files,
    so the file source (which orders files by modification time) reads them in order."""
    folder.mkdir(parents=True, exist_ok=True)
    existing = sorted(folder.glob("part-*.json"))
    path = folder / f"part-{len(existing):05d}.json"
    tmp = folder / f".{path.name}.tmp"
    tmp.write_text("".join(json.dumps(row) + "\n" for row in rows))
    latest = max((p.stat().st_mtime for p in existing), default=0.0)
    stamp = max(time.time(), latest + 1.0)
    os.utime(tmp, (stamp, stamp))
    tmp.rename(path)
