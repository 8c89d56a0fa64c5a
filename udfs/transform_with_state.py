"""Compute transformWithState state from history, in batch: the query's own ``StatefulProcessor``
runs once per key over the key's historical rows, with a handle that keeps its value, list and
map variables and its timers in memory; the result is the rows of one state table::

    spark.udtf.register("bootstrap_count", transform_with_state_bootstrap(
        Tracker, key=["user"], state="count", order_by=["ts"]))
    spark.sql("INSERT OVERWRITE savepoint.tws_0.count "
              "SELECT * FROM bootstrap_count(TABLE(history))")

or every variable and the timers of the operator at once, as one batch::

    bootstrap_transform_with_state(spark, "savepoint.tws_0", Tracker, "history",
                                   key=["user"], order_by=["ts"])

``Tracker`` is the processor class (or any callable returning a new processor). Its ``init``
runs once when the function is made, to learn the variables and their schemas (a SparkSession
must be active to parse DDL schemas), and again for every key.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from pyspark.sql.types import LongType, StructField

from spark_savepoint.udfs.group_state import _struct
from spark_savepoint.udfs.history import per_key_udtf

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

TIMERS = "timers"
"""The state name of the timers table."""


class BootstrapValueState:
    """A ValueState kept in memory."""

    def __init__(self) -> None:
        self.value: tuple | None = None

    def exists(self) -> bool:
        return self.value is not None

    def get(self) -> tuple | None:
        return self.value

    def update(self, newValue: tuple) -> None:  # noqa: N803 - pyspark's names
        self.value = tuple(newValue)

    def clear(self) -> None:
        self.value = None


class BootstrapListState:
    """A ListState kept in memory."""

    def __init__(self) -> None:
        self.values: list[tuple] = []

    def exists(self) -> bool:
        return bool(self.values)

    def get(self) -> Iterator[tuple]:
        return iter(list(self.values))

    def put(self, newState: list[tuple]) -> None:  # noqa: N803
        self.values = [tuple(v) for v in newState]

    def appendValue(self, newState: tuple) -> None:  # noqa: N802, N803
        self.values.append(tuple(newState))

    def appendList(self, newState: list[tuple]) -> None:  # noqa: N802, N803
        self.values.extend(tuple(v) for v in newState)

    def clear(self) -> None:
        self.values = []


class BootstrapMapState:
    """A MapState kept in memory."""

    def __init__(self) -> None:
        self.entries: dict[tuple, tuple] = {}

    def exists(self) -> bool:
        return bool(self.entries)

    def getValue(self, key: tuple) -> tuple | None:  # noqa: N802
        return self.entries.get(tuple(key))

    def containsKey(self, key: tuple) -> bool:  # noqa: N802
        return tuple(key) in self.entries

    def updateValue(self, key: tuple, value: tuple) -> None:  # noqa: N802
        self.entries[tuple(key)] = tuple(value)

    def iterator(self) -> Iterator[tuple[tuple, tuple]]:
        return iter(list(self.entries.items()))

    def keys(self) -> Iterator[tuple]:
        return iter(list(self.entries))

    def values(self) -> Iterator[tuple]:
        return iter(list(self.entries.values()))

    def removeKey(self, key: tuple) -> None:  # noqa: N802
        self.entries.pop(tuple(key), None)

    def clear(self) -> None:
        self.entries = {}


class BootstrapHandle:
    """The StatefulProcessorHandle a processor sees during a bootstrap: one key's variables and
    timers, starting empty. ``schemas`` records each variable's kind and schemas (as given)."""

    def __init__(self) -> None:
        self.states: dict[str, Any] = {}
        self.schemas: dict[str, tuple[str, tuple]] = {}
        self.timers: set[int] = set()

    def _state(self, name: str, kind: str, schemas: tuple, make: Callable[[], Any]) -> Any:
        self.schemas[name] = (kind, schemas)
        return self.states.setdefault(name, make())

    def getValueState(  # noqa: N802
        self,
        stateName: str,
        schema: Any,
        ttlDurationMs: int | None = None,  # noqa: N803
    ) -> BootstrapValueState:
        return self._state(stateName, "value", (schema,), BootstrapValueState)

    def getListState(  # noqa: N802
        self,
        stateName: str,
        schema: Any,
        ttlDurationMs: int | None = None,  # noqa: N803
    ) -> BootstrapListState:
        return self._state(stateName, "list", (schema,), BootstrapListState)

    def getMapState(  # noqa: N802
        self, stateName: str, userKeySchema: Any, valueSchema: Any,  # noqa: N803
        ttlDurationMs: int | None = None,  # noqa: N803
    ) -> BootstrapMapState:  # fmt: skip
        return self._state(stateName, "map", (userKeySchema, valueSchema), BootstrapMapState)

    def registerTimer(self, expiryTimestampMs: int) -> None:  # noqa: N802, N803
        self.timers.add(int(expiryTimestampMs))

    def deleteTimer(self, expiryTimestampMs: int) -> None:  # noqa: N802, N803
        self.timers.discard(int(expiryTimestampMs))

    def listTimers(self) -> Iterator[int]:  # noqa: N802
        return iter(sorted(self.timers))

    def deleteIfExists(self, stateName: str) -> None:  # noqa: N802, N803
        state = self.states.get(stateName)
        if state is not None:
            state.clear()

    def rows(self, name: str) -> Iterator[tuple]:
        """The state ``name`` (a variable, or ``timers``) as rows after the key columns."""
        if name == TIMERS:
            yield from ((t,) for t in sorted(self.timers))
            return
        state = self.states.get(name)
        if isinstance(state, BootstrapValueState) and state.value is not None:
            yield state.value
        elif isinstance(state, BootstrapListState):
            yield from state.values
        elif isinstance(state, BootstrapMapState):
            yield from ((*k, *v) for k, v in state.entries.items())


class BootstrapTimerValues:
    """The TimerValues of a bootstrap: no watermark yet, the current processing time."""

    def getCurrentProcessingTimeInMs(self) -> int:  # noqa: N802
        return int(time.time() * 1000)

    def getCurrentWatermarkInMs(self) -> int:  # noqa: N802
        return -1


def state_fields(processor: Callable[[], Any], state: str) -> list[StructField]:
    """The columns after the key that ``state`` of the processor's operator has: the value
    fields, the list element fields, the map key then value fields, or the timer timestamp.

    Raises:
        ValueError: the processor's ``init`` declares no such variable.
    """
    if state == TIMERS:
        return [StructField("expiration_timestamp_ms", LongType())]
    handle = BootstrapHandle()
    processor().init(handle)
    if state not in handle.schemas:
        raise ValueError(
            f"[SAVEPOINT_BAD_ARGUMENTS] the processor declares no state {state!r}; it has"
            f" {sorted(handle.schemas)} and {TIMERS!r}"
        )
    return [field for schema in handle.schemas[state][1] for field in _struct(schema).fields]


def state_names(processor: Callable[[], Any]) -> list[str]:
    """The processor's state variables (as its ``init`` declares them), then ``timers``."""
    handle = BootstrapHandle()
    processor().init(handle)
    return [*handle.schemas, TIMERS]


def transform_with_state_bootstrap(
    processor: Callable[[], Any],
    key: Sequence[str],
    state: str,
    order_by: Sequence[str] = (),
) -> Any:
    """A Python UDTF running ``processor`` over history per key and emitting the rows of one
    state table of its operator (``state``: a variable name, or ``timers``).

    Args:
        processor: the StatefulProcessor class of the streaming query (or a callable returning
            a new instance); ``handleInputRows`` gets each key's rows as one pandas DataFrame.
        key: the grouping columns of the streaming query, in order.
        state: the state variable (or ``timers``) whose rows the function emits.
        order_by: columns ordering each key's rows (event time), optional.

    Returns:
        A UDTF class to register with ``spark.udtf.register(name, ...)``.
    """

    def state_of(group: tuple, frame: Any) -> Iterator[tuple]:
        handle = BootstrapHandle()
        instance = processor()
        instance.init(handle)
        for _ in instance.handleInputRows(group, iter([frame]), BootstrapTimerValues()):
            pass  # the processor's output rows are not state
        yield from handle.rows(state)

    fields = state_fields(processor, state)
    return per_key_udtf(f"bootstrap_{state}", key, order_by, fields, state_of)


def bootstrap_transform_with_state(
    spark: SparkSession,
    namespace: str,
    processor: Callable[[], Any],
    history: str | DataFrame,
    key: Sequence[str],
    order_by: Sequence[str] = (),
) -> Any:
    """Replace every state variable and the timers of the transformWithState operator
    ``namespace`` (``savepoint.tws_0``) with what ``processor`` computes from ``history`` (a
    table name or a DataFrame), as one new batch. Returns the commit's ``EditReport``.
    """
    from spark_savepoint.sql_ext.transaction import edit

    table = history if isinstance(history, str) else _temp_view(history)
    with edit(spark) as tx:
        for state in state_names(processor):
            function = f"savepoint_bootstrap_{state}"
            spark.udtf.register(
                function, transform_with_state_bootstrap(processor, key, state, order_by)
            )
            tx.sql(
                f"INSERT OVERWRITE {namespace}.`{state}` SELECT * FROM {function}(TABLE({table}))"
            )
    return tx.report


def _temp_view(frame: DataFrame) -> str:
    name = f"savepoint_bootstrap_history_{id(frame)}"
    frame.createOrReplaceTempView(name)
    return name
