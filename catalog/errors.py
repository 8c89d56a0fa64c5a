"""Errors a user can act on: one exception class per stable error class (``SAVEPOINT_*``), each
message one line naming the checkpoint, operator, state, column, batch or file, and what to do.

The JVM catalog raises the same classes as Spark ``AnalysisException`` s whose condition
(``e.getCondition()``) is the ``SAVEPOINT_*`` class. Our own entry points (``session``,
``attach``, ``create_savepoint``, the CLI) raise the subclasses below; for ``spark.sql(...)``,
turn pyspark's exception into ours with ``spark_savepoint.savepoint_error`` or
``savepoint_errors`` (they read the Java exception: see :mod:`spark_savepoint.catalog.bridge`).

>>> error = from_message("[SAVEPOINT_NO_SUCH_STATE] No state 'x' in operator agg_0.")
>>> type(error).__name__, error.error_class, isinstance(error, SavepointError)
('NoSuchState', 'SAVEPOINT_NO_SUCH_STATE', True)
>>> from_message("unrelated") is None
True
"""

from __future__ import annotations

import re

_CLASS = re.compile(r"\[(SAVEPOINT_[A-Z_]+)\]\s*([^\n]*)")


class SavepointError(Exception):
    """Base class: something about a checkpoint, operator, state or batch is not as asked."""

    error_class = "SAVEPOINT_ERROR"

    def __init__(self, message: str, error_class: str | None = None) -> None:
        self.error_class = error_class or self.error_class
        self.message = message
        super().__init__(f"[{self.error_class}] {message}")

    def getCondition(self) -> str:  # noqa: N802 (pyspark's spelling)
        """The error class, like pyspark's ``PySparkException.getCondition()``."""
        return self.error_class


class CheckpointNotFound(SavepointError):
    """The folder does not exist or is not a streaming checkpoint."""

    error_class = "SAVEPOINT_NOT_A_CHECKPOINT"


class NoSuchCheckpoint(CheckpointNotFound):
    """The checkpoint folder does not exist."""

    error_class = "SAVEPOINT_NO_SUCH_CHECKPOINT"


class NotACheckpoint(CheckpointNotFound):
    """The folder exists but has no offsets/ and commits/ logs."""

    error_class = "SAVEPOINT_NOT_A_CHECKPOINT"


class NoCommitLog(SavepointError):
    """The folder has an offsets/ log and no commits/ log: Spark 2.0 or 2.1 wrote it."""

    error_class = "SAVEPOINT_NO_COMMIT_LOG"


class NoStateSchema(SavepointError):
    """An operator's state has no schema file: Spark before 3.1 recorded none."""

    error_class = "SAVEPOINT_NO_STATE_SCHEMA"


class RefusedBySpark(SavepointError):
    """State in a format Spark itself refuses to read or restart."""

    error_class = "SAVEPOINT_REFUSED_BY_SPARK"


class PathNotSet(SavepointError):
    """A catalog was configured without spark.sql.catalog.<name>.path."""

    error_class = "SAVEPOINT_PATH_NOT_SET"


class NoCommittedBatch(SavepointError):
    """The checkpoint has no committed batch yet."""

    error_class = "SAVEPOINT_NO_COMMITTED_BATCH"


class NoSuchOperator(SavepointError):
    """No stateful operator answers to the uid (or operator id) asked for."""

    error_class = "SAVEPOINT_NO_SUCH_OPERATOR"


class NoSuchState(SavepointError):
    """The operator has no state (table) of that name."""

    error_class = "SAVEPOINT_NO_SUCH_STATE"


class NoSuchBatch(SavepointError):
    """The batch asked for is not in the commit log."""

    error_class = "SAVEPOINT_NO_SUCH_BATCH"


class UncommittedBatch(SavepointError):
    """The batch is planned (offsets/N) but not committed (no commits/N)."""

    error_class = "SAVEPOINT_UNCOMMITTED_BATCH"


class BadVersion(SavepointError):
    """VERSION AS OF was given something that is not a batch id."""

    error_class = "SAVEPOINT_BAD_VERSION"


class NoBatchAtTime(SavepointError):
    """TIMESTAMP AS OF is before the first commit."""

    error_class = "SAVEPOINT_NO_BATCH_AT_TIME"


class Unsupported(SavepointError):
    """DDL and other statements a catalog of state tables cannot do."""

    error_class = "SAVEPOINT_UNSUPPORTED"


class CorruptFile(SavepointError):
    """A checkpoint file (log entry, metadata, schema or state file) cannot be read."""

    error_class = "SAVEPOINT_CORRUPT_FILE"


class StateTooLarge(SavepointError):
    """A state partition does not fit in the task's heap (Spark's HDFS-backed provider)."""

    error_class = "SAVEPOINT_OUT_OF_MEMORY"


class CheckpointIOError(SavepointError):
    """The file system failed while reading the checkpoint."""

    error_class = "SAVEPOINT_IO"


class QueryRunning(SavepointError):
    """A streaming query of this session runs on the checkpoint being written."""

    error_class = "SAVEPOINT_QUERY_RUNNING"


class QueryAlive(SavepointError):
    """The checkpoint's streaming query may be running in another driver (recent batches)."""

    error_class = "SAVEPOINT_QUERY_ALIVE"


class InterruptedEdit(SavepointError):
    """The last batch was planned by an edit that did not commit; its writer may still run."""

    error_class = "SAVEPOINT_INTERRUPTED_EDIT"


class UnfinishedCheckpoint(SavepointError):
    """A folder a savepoint, restore or upgrade started to write and has not finished."""

    error_class = "SAVEPOINT_UNFINISHED_CHECKPOINT"


class ReadOnlyState(SavepointError):
    """State that cannot be written (yet): join state, state with TTL, ..."""

    error_class = "SAVEPOINT_READ_ONLY_STATE"


class ReadOnlyServer(SavepointError):
    """A write or DDL statement sent to a read-only Thrift server."""

    error_class = "SAVEPOINT_READ_ONLY"


class ColumnMismatch(SavepointError):
    """A write gives columns that do not match the table's."""

    error_class = "SAVEPOINT_COLUMN_MISMATCH"


class TypeMismatch(SavepointError):
    """A write gives a column of a type that would need a lossy conversion."""

    error_class = "SAVEPOINT_TYPE_MISMATCH"


class NullKey(SavepointError):
    """A write gives a NULL key."""

    error_class = "SAVEPOINT_NULL_KEY"


class DuplicateKey(SavepointError):
    """A write gives the same key more than once."""

    error_class = "SAVEPOINT_DUPLICATE_KEY"


class PartitionMismatch(SavepointError):
    """Internal: a row reached the wrong state partition (please report)."""

    error_class = "SAVEPOINT_PARTITION_MISMATCH"


class UnknownPartitioning(SavepointError):
    """A write of state its query placed by its input's partitioning (started before Spark 3.3)
    that does not name the placing columns (``partitioned_by``)."""

    error_class = "SAVEPOINT_UNKNOWN_PARTITIONING"


class PartitioningMismatch(SavepointError):
    """A ``partitioned_by`` that places some stored key elsewhere than where it lives."""

    error_class = "SAVEPOINT_PARTITIONING_MISMATCH"


class ConcurrentWrite(SavepointError):
    """The checkpoint changed while a write was running."""

    error_class = "SAVEPOINT_CONCURRENT_WRITE"


class WriteFailed(SavepointError):
    """The file system failed during a write (which was rolled back)."""

    error_class = "SAVEPOINT_WRITE_FAILED"


class TargetNotEmpty(SavepointError):
    """create_savepoint into a folder that exists and is not empty."""

    error_class = "SAVEPOINT_TARGET_NOT_EMPTY"


class MovedCheckpoint(SavepointError):
    """A transformWithState checkpoint read away from where Spark recorded its schema files."""

    error_class = "SAVEPOINT_MOVED_CHECKPOINT"


class RestoreUnsupported(SavepointError):
    """A restore (partitions, provider, operators) Spark could not run afterwards."""

    error_class = "SAVEPOINT_RESTORE_UNSUPPORTED"


class ChecksumMismatch(SavepointError):
    """A savepoint file differs from the size or SHA-256 its manifest records."""

    error_class = "SAVEPOINT_CHECKSUM_MISMATCH"


class ReadOnlySavepoint(SavepointError):
    """A write into a savepoint that was neither taken nor attached writable."""

    error_class = "SAVEPOINT_READ_ONLY_SAVEPOINT"


class NotASavepoint(SavepointError):
    """The folder has no ``_savepoint.json``."""

    error_class = "SAVEPOINT_NOT_A_SAVEPOINT"


class BadArguments(SavepointError):
    """Wrong arguments to a table function or to savepoint take/restore (--uid, --partitions)."""

    error_class = "SAVEPOINT_BAD_ARGUMENTS"


class SqlParseError(SavepointError):
    """A SQL script given to ``spark-savepoint sql`` (or ``split_statements``) does not parse;
    the message names the line and column."""

    error_class = "SAVEPOINT_SQL_PARSE_ERROR"


class TransactionConflict(SavepointError):
    """A statement an edit transaction cannot take: it reads or edits a table an earlier
    statement of the transaction edited, or edits another checkpoint."""

    error_class = "SAVEPOINT_TRANSACTION_CONFLICT"


class TransactionEnded(SavepointError):
    """A statement or call for an edit transaction that was committed or rolled back."""

    error_class = "SAVEPOINT_TRANSACTION_ENDED"


class NoSinkLog(SavepointError):
    """``sink.files`` without a file sink log: no ``sink`` option, or no ``_spark_metadata``."""

    error_class = "SAVEPOINT_NO_SINK_LOG"


class BadSourcePosition(SavepointError):
    """An edit of ``sources.offsets`` that the source cannot honour; nothing was written."""

    error_class = "SAVEPOINT_BAD_SOURCE_POSITION"


class BadWatermark(SavepointError):
    """An edit of ``query.batches`` other than setting the last batch's watermark; nothing
    was written."""

    error_class = "SAVEPOINT_BAD_WATERMARK"


class UpgradeRefused(SavepointError):
    """An upgrade that is incompatible, or drops state without ``allow_drop``; nothing was
    written."""

    error_class = "SAVEPOINT_UPGRADE_REFUSED"


class JvmPieceMissing(SavepointError):
    """The running session's driver cannot load the spark-savepoint jar at run time."""

    error_class = "SAVEPOINT_JAR_MISSING"


class PortInUse(SavepointError):
    """The port of a server (Thrift, Spark Connect) is taken by another process."""

    error_class = "SAVEPOINT_PORT_IN_USE"


class InsecureBind(SavepointError):
    """A server asked to listen beyond loopback with no credential (and no ``--insecure``)."""

    error_class = "SAVEPOINT_INSECURE_BIND"


class CredentialFileError(SavepointError):
    """A server's token or password file is missing, empty or readable by other users."""

    error_class = "SAVEPOINT_CREDENTIAL_FILE"


class ConnectUnsupported(SavepointError):
    """A function that needs the Spark driver's JVM, called with a Spark Connect session."""

    error_class = "SAVEPOINT_CONNECT_UNSUPPORTED"


def _subclasses(cls: type[SavepointError]) -> list[type[SavepointError]]:
    return [c for sub in cls.__subclasses__() for c in (sub, *_subclasses(sub))]


BY_CLASS: dict[str, type[SavepointError]] = {
    cls.error_class: cls for cls in _subclasses(SavepointError)
}
"""Every ``SAVEPOINT_*`` class -> its exception type."""


def from_message(text: str) -> SavepointError | None:
    """The error a message names by its ``[SAVEPOINT_*]`` class, or None when it names none."""
    match = _CLASS.search(text)
    if match is None:
        return None
    error_class, message = match.group(1), match.group(2).strip()
    return BY_CLASS.get(error_class, SavepointError)(message, error_class)
