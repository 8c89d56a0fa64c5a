"""``relocate``: a whole checkpoint moved or copied to another folder or file system, with the
absolute paths it holds re-pointed, so the query restarted there continues.

``CALL <catalog>.system.relocate(...)`` (``dev.sparksavepoint.actions.RelocateCheckpoint``)
copies every file of every batch the checkpoint keeps (a Spark job, byte for byte), keeps the
query id and the log entries' times, re-points what names absolute paths, then verifies the
target (:func:`~spark_savepoint.verify`); with ``move`` it removes the source only when the
target has no error. What is re-pointed:

- transformWithState's schema files in operator metadata v2: into the new folder, always;
- a file source's log (``sources/``): for each ``source_paths`` entry ``OLD: NEW`` (the input
  moved too);
- a file sink's ``_spark_metadata``: for each ``sink_paths`` entry the sink's folder is copied
  from OLD to NEW and its log re-pointed.

>>> moved_list({"/out": "hdfs://nn/out", "/in": "s3a://b/in"})
'/out=hdfs://nn/out,/in=s3a://b/in'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from spark_savepoint.sql_ext import procedures

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def relocate(
    spark: SparkSession,
    source: str,
    target: str,
    move: bool = False,
    sink_paths: Mapping[str, str] | None = None,
    source_paths: Mapping[str, str] | None = None,
    force: bool = False,
) -> str:
    """Copy (``move``: move) checkpoint ``source`` to the new folder ``target``; one line: what
    was done and the doctor's verdict on the target.

    ``sink_paths``/``source_paths``: ``{old folder: new folder}`` of a file sink that moves with
    it (copied) and of a file source's input that moved (re-pointed). ``force``: also when its
    query looks alive (you know it is stopped).

    >>> relocate(spark, "/data/ckpt", "hdfs://nn/ckpt", move=True)  # doctest: +SKIP
    "moved '/data/ckpt' to 'hdfs://nn/ckpt' (...): the doctor finds no error there."

    Raises:
        SavepointError: ``TargetNotEmpty``, ``QueryAlive``, ``NoSinkLog``, ``BadArguments``...;
            nothing is left at the target then.
    """
    row = procedures.call(
        spark,
        source,
        "relocate",
        target=target,
        move=move,
        sink_paths=moved_list(sink_paths or {}),
        source_paths=moved_list(source_paths or {}),
        force=force,
    )
    return str(row.message)


def moved_list(moved: Mapping[str, str]) -> str:
    """``{old: new}`` as the procedure takes it: ``old=new`` items, comma-separated."""
    return ",".join(f"{old}={new}" for old, new in moved.items())
