"""The shape every bootstrap table function shares: a Python UDTF over a history table that
Spark partitions by the key columns (and orders by the order columns); per key it gets all the
key's rows as one pandas DataFrame and emits the key columns followed by state columns."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pyspark
import pyspark.sql.udtf as udtf_api
from pyspark.sql.functions import udtf
from pyspark.sql.types import StructField, StructType

from spark_savepoint.catalog.errors import SparkVersionUnsupported

if TYPE_CHECKING:
    from pyspark.sql.udtf import AnalyzeArgument, AnalyzeResult

HAS_ANALYZE = hasattr(udtf_api, "AnalyzeResult")
"""Whether a UDTF's ``analyze()`` can partition and order its table argument (Spark 4.0+)."""

KeyState = Callable[[tuple, Any], Iterator[tuple]]
"""``(key, frame) -> state rows``: the state columns (after the key) of one key's history."""


def per_key_udtf(
    name: str,
    key: Sequence[str],
    order_by: Sequence[str],
    fields: Sequence[StructField],
    state_of: KeyState,
) -> Any:
    """A UDTF ``name(TABLE(history))`` emitting ``(*key, *state)`` for each row ``state_of``
    gives for each key (``fields``: the state columns).

    The history must have the ``key`` and ``order_by`` columns; otherwise the function fails
    with ``SAVEPOINT_BOOTSTRAP_COLUMNS`` naming them.
    """
    if not HAS_ANALYZE:
        raise SparkVersionUnsupported(
            f"the bootstrap table function {name} needs Spark 4.0 or "
            f"later (a Python UDTF that partitions its table argument); this is pyspark "
            f"{pyspark.__version__}: run it with pyspark 4.0 or later, or write the state rows "
            "with INSERT ... SELECT."
        )
    key_columns, order_columns, state_fields = list(key), list(order_by), list(fields)

    class PerKeyHistory:
        @staticmethod
        def analyze(table: AnalyzeArgument) -> AnalyzeResult:
            if not table.isTable or not isinstance(table.dataType, StructType):
                raise ValueError("pass the history as a table: f(TABLE(history))")
            given = {field.name: field for field in table.dataType.fields}
            missing = [c for c in key_columns + order_columns if c not in given]
            if missing:
                raise ValueError(
                    f"[SAVEPOINT_BOOTSTRAP_COLUMNS] history has no column(s) {missing}; "
                    f"it has {sorted(given)}"
                )
            return udtf_api.AnalyzeResult(
                StructType([given[c] for c in key_columns] + state_fields),
                partitionBy=[udtf_api.PartitioningColumn(c) for c in key_columns],
                orderBy=[udtf_api.OrderingColumn(c) for c in order_columns],
            )

        def __init__(self) -> None:
            self.rows: list[dict] = []

        def eval(self, row: Any) -> None:
            self.rows.append(row.asDict())

        def terminate(self) -> Iterator[tuple]:
            if not self.rows:
                return
            import pandas as pd

            group = tuple(self.rows[0][c] for c in key_columns)
            for values in state_of(group, pd.DataFrame(self.rows)):
                yield (*group, *values)

    PerKeyHistory.__name__ = name
    return udtf(PerKeyHistory)
