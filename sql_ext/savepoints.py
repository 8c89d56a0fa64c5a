"""Savepoints: take, list, restore and dispose of self-contained images of a streaming query's
state. A savepoint is a folder holding one committed batch of a checkpoint (only the files that
batch needs, one full state image per store partition) and a manifest, ``_savepoint.json``. It
can be copied anywhere, opened as a catalog like a checkpoint, and restored into a new
checkpoint, also with another partition count, state store provider or operator ids.

Example::

    from spark_savepoint import session, take_savepoint, restore_savepoint
    spark = session()
    take_savepoint(spark, "/ckpt/orders", "/savepoints/orders-41", uids={"0": "orders_by_user"})
    restore_savepoint(spark, "/savepoints/orders-41", "/ckpt/orders-v2", partitions=16,
                      provider="rocksdb")
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spark_savepoint.catalog import bridge
from spark_savepoint.catalog.errors import BadArguments
from spark_savepoint.sql_ext import procedures

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Uids = Mapping[str, str] | Iterable[str] | None
"""Operator renames: ``{"0": "orders_by_user", "agg_1": "2"}`` or ``["0=orders_by_user"]``."""


@dataclass(frozen=True)
class SavepointInfo:
    """One savepoint as ``list_savepoints`` finds it (read from its manifest)."""

    path: str
    query_id: str
    batch_id: int
    taken_at: str
    committed_at: str
    source: str
    operators: str
    provider: str
    partitions: int
    rows: int | None  # None: not counted (HDFS-backed, taken without count_rows)
    bytes: int
    writable: bool


def take_savepoint(
    spark: SparkSession,
    checkpoint: str,
    target: str,
    batch: int | None = None,
    uids: Uids = None,
    writable: bool = False,
    count_rows: bool = False,
) -> dict[str, Any]:
    """Take a savepoint of ``checkpoint`` at its last committed batch (or ``batch``) into the new
    folder ``target``; returns the manifest (also written as ``target/_savepoint.json``).

    ``uids`` gives operators user uids (``{"0": "orders_by_user"}``), recorded in the savepoint
    and shown in the catalog alongside the generated ``agg_0``. ``writable`` lets the catalog
    edit the savepoint; by default it is immutable. Only committed files are read: the query may
    keep running. Row counts come free from RocksDB's metadata; HDFS-backed files record none, so
    their ``rows`` are ``None`` unless ``count_rows`` reads every record to count them. Raises
    ``SavepointError`` (``TargetNotEmpty``, ``NoSuchBatch``, ...).
    """
    if batch is not None and int(batch) < 0:
        raise BadArguments(
            f"Cannot take a savepoint of '{checkpoint}' at batch {batch}: a batch id is 0 or more;"
            " leave it out for the last committed batch."
        )
    row = procedures.call(
        spark, checkpoint, "take_savepoint", target=str(target),
        batch_id=-1 if batch is None else int(batch), uids=",".join(_items(uids)),
        writable=bool(writable), count_rows=bool(count_rows),
    )  # fmt: skip
    return json.loads(row["manifest"])


def restore_savepoint(
    spark: SparkSession,
    savepoint: str,
    target: str,
    partitions: int | None = None,
    provider: str | None = None,
    uids: Uids = None,
    drop: Iterable[str] = (),
) -> str:
    """Restore ``savepoint`` (or any checkpoint) into the new checkpoint folder ``target``, which
    the streaming query then starts from; returns a one-line summary.

    ``partitions`` rehashes every key into that many partitions with Spark's partitioner (the new
    count is recorded, so the query runs with it); ``provider`` (``"hdfs"`` or ``"rocksdb"``)
    migrates the state store provider; ``uids`` moves operators' state to other operator ids
    (``{"agg_0": "1"}``) or names them (``{"0": "orders"}``); ``drop`` leaves operators out. The
    savepoint's checksums are verified first. Raises ``SavepointError``
    (``RestoreUnsupported``, ``ChecksumMismatch``, ``BadArguments``, ...).
    """
    if partitions is not None and int(partitions) < 1:
        raise BadArguments(
            f"Cannot restore '{savepoint}' onto {partitions} partitions: give 1 or more, or leave"
            " it out to keep the savepoint's count."
        )
    row = procedures.call(
        spark, savepoint, "restore_savepoint", target=str(target),
        partitions=int(partitions or 0), provider=provider or "", uids=",".join(_items(uids)),
        drop=",".join(drop),
    )  # fmt: skip
    return str(row["message"])


def list_savepoints(spark: SparkSession, folder: str) -> list[SavepointInfo]:
    """The savepoints in ``folder`` (itself, or its subfolders), sorted by path."""
    with bridge.savepoint_errors():
        rows = spark.sql("SELECT * FROM savepoint_list(:folder)", args={"folder": str(folder)})
        listed = sorted((row.asDict() for row in rows.collect()), key=lambda row: row["path"])
    return [SavepointInfo(**row) for row in listed]


def dispose_savepoint(spark: SparkSession, path: str) -> str:
    """Remove the savepoint at ``path``: exactly the files its manifest lists (files it does not
    list are kept and reported); returns a one-line summary."""
    return str(procedures.call(spark, path, "dispose_savepoint", path=str(path))["message"])


def _items(uids: Uids) -> list[str]:
    """``{"0": "orders"}`` or ``["0=orders"]`` -> ``["0=orders"]``.

    >>> _items({"0": "orders", "agg_1": "2"})
    ['0=orders', 'agg_1=2']
    >>> _items(None)
    []
    """
    if uids is None:
        return []
    if isinstance(uids, Mapping):
        return [f"{key}={value}" for key, value in uids.items()]
    return [str(item) for item in uids]
