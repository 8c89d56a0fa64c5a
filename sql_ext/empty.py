"""Empty savepoints: a new checkpoint folder shaped like an existing query's checkpoint, with
empty state, ready to be bootstrapped with INSERT and then started by a new run of the query.

Example::

    from spark_savepoint import create_savepoint, session
    spark = session()
    create_savepoint(spark, "/savepoints/orders-v2", like="/checkpoints/orders")
    spark.sql("INSERT INTO savepoint.agg_0.default SELECT user, count(*), sum(amount) ...")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spark_savepoint.sql_ext import procedures

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def create_savepoint(spark: SparkSession, target: str, like: str) -> str:
    """Create the empty savepoint ``target`` with the operator layout, state schemas, shuffle
    partitions, provider and source positions of the last committed batch of checkpoint
    ``like``; returns a one-line summary.

    ``target`` must not exist or be an empty folder. Its only committed batch (0) holds empty
    state in every store; a query started on it reads input after ``like``'s position.

    Raises:
        SavepointError: ``TargetNotEmpty``, ``TemplateUnsupported``, ``NoSuchCheckpoint``, ...
    """
    return str(procedures.call(spark, target, "create_savepoint", like=str(like))["message"])
