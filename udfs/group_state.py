"""Compute applyInPandasWithState / flatMapGroupsWithState state from history, in batch.

Flink calls this a ``KeyedStateBootstrapFunction``: instead of replaying months of input
through a streaming query, run the query's own state function once per key over historical
rows, and write the final states into the savepoint::

    def count_and_sum(key, frames, state):            # the function the streaming query uses
        cnt, total = state.get if state.exists else (0, 0)
        for frame in frames:
            cnt, total = cnt + len(frame), total + int(frame["amount"].sum())
        state.update((cnt, total))
        yield pd.DataFrame({"user": [key[0]], "cnt": [cnt], "total": [total]})

    spark.udtf.register("bootstrap_counts", group_state_bootstrap(
        count_and_sum, key=["user"], state_schema="cnt long, total long", order_by=["ts"]))
    spark.sql("INSERT OVERWRITE savepoint.groupstate_0.default "
              "SELECT * FROM bootstrap_counts(TABLE(history))")

The table function partitions its input by ``key`` itself (no ``PARTITION BY`` needed), calls
the function once per key with all that key's rows (ordered by ``order_by``) and emits the key
columns followed by the state's fields: exactly the columns of the state table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pyspark.sql.types import StructType

from spark_savepoint.udfs.history import per_key_udtf

StateFunction = Callable[[tuple, Iterator[Any], "BootstrapGroupState"], Iterator[Any]]


class BootstrapGroupState:
    """The GroupState a state function sees during a bootstrap: starts empty, never times out.

    >>> state = BootstrapGroupState()
    >>> state.exists, state.getOption
    (False, None)
    >>> state.update((2, 17)); state.get
    (2, 17)
    """

    def __init__(self) -> None:
        self._value: tuple | None = None

    @property
    def exists(self) -> bool:
        return self._value is not None

    @property
    def get(self) -> tuple:
        if self._value is None:
            raise ValueError("state does not exist for this key yet (check state.exists first)")
        return self._value

    @property
    def getOption(self) -> tuple | None:  # noqa: N802 - pyspark's GroupState spelling
        return self._value

    @property
    def hasTimedOut(self) -> bool:  # noqa: N802
        return False

    def update(self, new_value: tuple) -> None:
        self._value = tuple(new_value)

    def remove(self) -> None:
        self._value = None

    def setTimeoutDuration(self, duration_ms: int) -> None:  # noqa: N802
        """Timeouts are not part of bootstrapped state; accepted and ignored."""

    def setTimeoutTimestamp(self, timestamp_ms: int) -> None:  # noqa: N802
        """Timeouts are not part of bootstrapped state; accepted and ignored."""

    def getCurrentWatermarkMs(self) -> int:  # noqa: N802
        return -1

    def getCurrentProcessingTimeMs(self) -> int:  # noqa: N802
        import time

        return int(time.time() * 1000)


def group_state_bootstrap(
    func: StateFunction,
    key: Sequence[str],
    state_schema: StructType | str,
    order_by: Sequence[str] = (),
) -> Any:
    """A Python UDTF running ``func`` (an applyInPandasWithState function) over history per key.

    Args:
        func: ``func(key, frames, state)``, as given to ``applyInPandasWithState``.
        key: the grouping columns of the streaming query, in order.
        state_schema: the state struct, as given to ``applyInPandasWithState`` (DDL or
            StructType; a DDL string needs an active SparkSession to be parsed).
        order_by: columns ordering each key's rows (event time), optional.

    Returns:
        A UDTF class to register with ``spark.udtf.register(name, ...)``.
    """
    state_type = _struct(state_schema)

    def state_of(group: tuple, frame: Any) -> Iterator[tuple]:
        state = BootstrapGroupState()
        for _ in func(group, iter([frame]), state):
            pass  # the function's output rows are not state
        if state.exists:
            yield state.get

    name = f"bootstrap_{getattr(func, '__name__', 'state')}"
    return per_key_udtf(name, key, order_by, state_type.fields, state_of)


def _struct(schema: StructType | str) -> StructType:
    if isinstance(schema, StructType):
        return schema
    from pyspark.sql.types import _parse_datatype_string

    parsed = _parse_datatype_string(schema)
    if not isinstance(parsed, StructType):
        raise ValueError(f"state_schema must be a struct, got {schema!r}")
    return parsed
