"""Comparing state rows independently of column naming: every row as its tuple of leaf values."""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql.types import DataType, NullType, StructType


def leaves(value: Any, dtype: DataType) -> list[Any]:
    """Leaf values of a (nested) row in schema order; void placeholder fields are skipped."""
    if isinstance(dtype, StructType):
        out: list[Any] = []
        for field in dtype.fields:
            if isinstance(field.dataType, NullType):
                continue
            out += leaves(None if value is None else value[field.name], field.dataType)
        return out
    return [value]


def leaf_rows(df: DataFrame) -> list[tuple]:
    """All rows of ``df`` as sorted leaf tuples."""
    rows = [tuple(leaves(row, df.schema)) for row in df.collect()]
    return sorted(rows, key=repr)
