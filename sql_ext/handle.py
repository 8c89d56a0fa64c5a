"""One checkpoint (or savepoint) and a session: the path-taking verbs as methods.

The module-level verbs (``take_savepoint(spark, path, ...)``, ``inspect_checkpoint(spark,
path)``, ...) stay; a :class:`Checkpoint` only saves repeating the session and the path, as
Delta's ``DeltaTable`` does::

    from spark_savepoint import Checkpoint
    ckpt = Checkpoint(spark, "/data/ckpt")
    ckpt.table("agg_0.default").show()
    ckpt.take_savepoint("/data/savepoints/before-fix")
    ckpt.restore_to("/data/ckpt-8", partitions=8)   # this checkpoint, rehashed, into a new one

Every method works where its verb does (classic and Spark Connect sessions alike).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spark_savepoint.sql_ext import (
    doctor,
    edits,
    empty,
    inspection,
    savepoints,
    session,
    upgrade,
)
from spark_savepoint.sql_ext import hygiene as state_hygiene
from spark_savepoint.sql_ext import undo as edit_undo

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True)
class Checkpoint:
    """The checkpoint or savepoint folder ``path``, used through ``spark``."""

    spark: SparkSession
    path: str

    @classmethod
    def create_like(cls, spark: SparkSession, target: str, like: str) -> Checkpoint:
        """A new, empty savepoint at ``target`` shaped like the checkpoint ``like``
        (:func:`~spark_savepoint.create_savepoint`), to bootstrap state into."""
        empty.create_savepoint(spark, target, like)
        return cls(spark, target)

    def attach(self, catalog: str = session.DEFAULT_CATALOG, **options: Any) -> Checkpoint:
        """Attach it to the session as ``catalog`` (:func:`~spark_savepoint.attach`; options
        such as ``writable``, ``sink``, ``query``); returns itself."""
        session.attach(self.spark, self.path, catalog, **options)
        return self

    def table(self, name: str, catalog: str = session.DEFAULT_CATALOG) -> DataFrame:
        """State table (or log table) ``name``, e.g. ``"agg_0.default"``, attached as
        ``catalog``."""
        self.attach(catalog)
        return self.spark.table(f"`{catalog}`.{name}")

    def inspect(self, batch: int | None = None, rows: bool = True) -> inspection.Inspection:
        """What it holds (:func:`~spark_savepoint.inspect_checkpoint`)."""
        return inspection.inspect_checkpoint(self.spark, self.path, batch, rows)

    def take_savepoint(
        self,
        target: str,
        batch: int | None = None,
        uids: savepoints.Uids = None,
        writable: bool = False,
        count_rows: bool = False,
    ) -> Checkpoint:
        """A savepoint of it at ``target`` (:func:`~spark_savepoint.take_savepoint`, whose
        manifest ``target/_savepoint.json`` is); returns the savepoint."""
        savepoints.take_savepoint(self.spark, self.path, target, batch, uids, writable, count_rows)
        return Checkpoint(self.spark, target)

    def restore_to(
        self,
        target: str,
        partitions: int | None = None,
        provider: str | None = None,
        uids: savepoints.Uids = None,
        drop: Iterable[str] = (),
    ) -> Checkpoint:
        """It restored into the new checkpoint ``target``
        (:func:`~spark_savepoint.restore_savepoint`); returns the new checkpoint."""
        savepoints.restore_savepoint(
            self.spark, self.path, target, partitions, provider, uids, drop
        )
        return Checkpoint(self.spark, target)

    def savepoints(self) -> list[savepoints.SavepointInfo]:
        """The savepoints in its folder (itself, or its subfolders)."""
        return savepoints.list_savepoints(self.spark, self.path)

    def dispose(self) -> str:
        """Removes it, as a savepoint (:func:`~spark_savepoint.dispose_savepoint`)."""
        return savepoints.dispose_savepoint(self.spark, self.path)

    def verify(self, deep: bool = False) -> doctor.Verification:
        """What is wrong with it (:func:`~spark_savepoint.verify`)."""
        return doctor.verify(self.spark, self.path, deep)

    def recover(self, force: bool = False) -> str:
        """Completes or removes what an interrupted edit left (:func:`~spark_savepoint.recover`)."""
        return edits.recover(self.spark, self.path, force)

    def hygiene(self, **options: Any) -> state_hygiene.Hygiene:
        """Its evictable, expired and older rows per table (:func:`~spark_savepoint.hygiene`)."""
        return state_hygiene.hygiene(self.spark, self.path, **options)

    def purge(self, **options: Any) -> state_hygiene.Purge:
        """Those rows deleted as one edit batch (:func:`~spark_savepoint.purge`)."""
        return state_hygiene.purge(self.spark, self.path, **options)

    def undo(self, batch: int | None = None, **options: Any) -> edit_undo.Undo:
        """Its last edit (or edit batch ``batch``) taken back (:func:`~spark_savepoint.undo`)."""
        return edit_undo.undo(self.spark, self.path, batch, **options)

    def upgrade_check(
        self, new_query: DataFrame, output_mode: str = "append", maps: Iterable[str] = ()
    ) -> upgrade.UpgradeReport:
        """Whether ``new_query`` can continue from it (:func:`~spark_savepoint.upgrade_check`)."""
        return upgrade.upgrade_check(self.spark, self.path, new_query, output_mode, maps)

    def upgrade_to(
        self,
        target: str,
        new_query: DataFrame,
        output_mode: str = "append",
        maps: Iterable[str] = (),
        allow_drop: bool = False,
    ) -> Checkpoint:
        """It upgraded for ``new_query`` into the new checkpoint ``target``
        (:func:`~spark_savepoint.upgrade_apply`); returns the new checkpoint."""
        upgrade.upgrade_apply(
            self.spark, self.path, target, new_query, output_mode, maps, allow_drop
        )
        return Checkpoint(self.spark, target)
