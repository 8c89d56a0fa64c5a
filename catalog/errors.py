"""Errors a user can act on: one exception class per stable error class (``SAVEPOINT_*``), each
message one line naming the checkpoint, operator, state, column, batch or file, and what to do.

The JVM catalog raises the same classes as Spark ``AnalysisException`` s whose condition
(``e.getCondition()``) is the ``SAVEPOINT_*`` class. Our own entry points (``session``,
``attach``, ``create_savepoint``, the CLI) raise the subclasses below; for ``spark.sql(...)``,
turn pyspark's exception into ours with ``spark_savepoint.savepoint_error`` or
``savepoint_errors`` (they read the Java exception: see :mod:`spark_savepoint.catalog.bridge`).

The classes are listed in one registry, ``error-conditions.json`` beside this module (the jar
carries a copy, from which the JVM takes each class's SQLSTATE): its SQLSTATE, Python class, what
it means and what to do. The classes between the ``<error-conditions>`` markers below and the
tables of docs/errors.md are generated from it (``python -m tests.support.error_registry
--write``); tests/unit/test_error_registry.py checks they are in step, and that every
``SAVEPOINT_*`` class the code raises is registered.

>>> error = from_message("[SAVEPOINT_NO_SUCH_STATE] No state 'x' in operator agg_0.")
>>> type(error).__name__, error.error_class, error.sql_state, isinstance(error, SavepointError)
('NoSuchState', 'SAVEPOINT_NO_SUCH_STATE', '42P01', True)
>>> from_message("unrelated") is None
True
"""

from __future__ import annotations

import re

_CLASS = re.compile(r"\[(SAVEPOINT_[A-Z_]+)\]\s*([^\n]*)")


class SavepointError(Exception):
    """Base class: something about a checkpoint, operator, state or batch is not as asked."""

    error_class = "SAVEPOINT_ERROR"
    sql_state: str | None = None
    """The class's SQLSTATE (the registry's), as the JVM error's ``getSqlState()``."""

    def __init__(self, message: str, error_class: str | None = None) -> None:
        self.error_class = error_class or self.error_class
        self.message = message
        super().__init__(f"[{self.error_class}] {message}")

    def getCondition(self) -> str:  # noqa: N802 (pyspark's spelling)
        """The error class, like pyspark's ``PySparkException.getCondition()``."""
        return self.error_class

    def getSqlState(self) -> str | None:  # noqa: N802 (pyspark's spelling)
        """The SQLSTATE, like pyspark's ``PySparkException.getSqlState()``."""
        return self.sql_state


class CheckpointNotFound(SavepointError):
    """The folder does not exist or is not a streaming checkpoint."""

    error_class = "SAVEPOINT_NOT_A_CHECKPOINT"
    sql_state = "42704"


# <error-conditions> generated from error-conditions.json: do not edit by hand


class NoSuchCheckpoint(CheckpointNotFound):
    """The checkpoint folder does not exist (catalog ``path``, ``like``, ``attach``, table
    functions, CLI)."""

    error_class = "SAVEPOINT_NO_SUCH_CHECKPOINT"
    sql_state = "42704"


class NotACheckpoint(CheckpointNotFound):
    """The folder exists but has no ``offsets/`` and ``commits/`` logs."""

    error_class = "SAVEPOINT_NOT_A_CHECKPOINT"
    sql_state = "42704"


class NoCommitLog(SavepointError):
    """The folder has an ``offsets/`` log and no ``commits/`` log: Spark 2.0 and 2.1 kept none
    (2.2 added it; later releases always create both logs)."""

    error_class = "SAVEPOINT_NO_COMMIT_LOG"
    sql_state = "55000"


class NoStateSchema(SavepointError):
    """Reading or writing state that has no schema file (``state/<op>/0/_metadata/schema``):
    Spark before 3.1 recorded none (SPARK-27237), and Spark's state reader cannot decode rows
    without one; ``metadata`` still lists the table, with no key or value schema and ``no state
    schema file`` in ``inferred``."""

    error_class = "SAVEPOINT_NO_STATE_SCHEMA"
    sql_state = "55000"


class RefusedBySpark(SavepointError):
    """Reading or writing state in a format Spark itself cannot read: transformWithState state
    of a pre-release build of Spark 4.0.0 (operator metadata naming its schema file under
    ``stateSchemaFilePath``, a schema file without schema ids), which Spark 4.3's own reader
    fails on too."""

    error_class = "SAVEPOINT_REFUSED_BY_SPARK"
    sql_state = "0A000"


class PathNotSet(SavepointError):
    """A catalog without ``spark.sql.catalog.<name>.path``."""

    error_class = "SAVEPOINT_PATH_NOT_SET"
    sql_state = "42000"


class NoCommittedBatch(SavepointError):
    """The checkpoint has no ``commits/`` entry yet."""

    error_class = "SAVEPOINT_NO_COMMITTED_BATCH"
    sql_state = "42000"


class NoSuchOperator(SavepointError):
    """No stateful operator answers to the uid or operator id asked for."""

    error_class = "SAVEPOINT_NO_SUCH_OPERATOR"
    sql_state = "42704"


class NoSuchState(SavepointError):
    """The operator has no state (table) of that name."""

    error_class = "SAVEPOINT_NO_SUCH_STATE"
    sql_state = "42P01"


class NoSuchBatch(SavepointError):
    """``VERSION AS OF`` a batch that is not in the commit log."""

    error_class = "SAVEPOINT_NO_SUCH_BATCH"
    sql_state = "22023"


class UncommittedBatch(SavepointError):
    """The batch is planned (``offsets/N``) but not committed (reads and writes)."""

    error_class = "SAVEPOINT_UNCOMMITTED_BATCH"
    sql_state = "42000"


class BadVersion(SavepointError):
    """``VERSION AS OF`` something that is not a batch id (a whole number)."""

    error_class = "SAVEPOINT_BAD_VERSION"
    sql_state = "22023"


class NoBatchAtTime(SavepointError):
    """``TIMESTAMP AS OF`` before the first commit."""

    error_class = "SAVEPOINT_NO_BATCH_AT_TIME"
    sql_state = "22023"


class BadArguments(SavepointError):
    """Wrong arguments: to ``savepoint_state``/``savepoint_metadata``;
    ``--uid``/``--drop-operator`` of savepoint take and restore that name no operator, are
    malformed, or would give two operators one id or uid; ``--map``, ``--query``,
    ``--partitions``, ``partitioned_by`` and the like given something they cannot take."""

    error_class = "SAVEPOINT_BAD_ARGUMENTS"
    sql_state = "22023"


class SqlParseError(SavepointError):
    """A SQL script given to ``spark-savepoint sql --dry-run`` (or ``split_statements``) does
    not parse."""

    error_class = "SAVEPOINT_SQL_PARSE_ERROR"
    sql_state = "42601"


class Unsupported(SavepointError):
    """``CREATE TABLE`` (also ``AS SELECT``), ``ALTER TABLE``, ``RENAME``, ``DROP TABLE
    [PURGE]``, ``CREATE/ALTER/DROP NAMESPACE``, writing ``<catalog>.metadata``."""

    error_class = "SAVEPOINT_UNSUPPORTED"
    sql_state = "0A000"


class ReadOnlyServer(SavepointError):
    """A write, CALL or DDL sent to a read-only server (the default of ``thriftserver`` and
    ``connect``)."""

    error_class = "SAVEPOINT_READ_ONLY"
    sql_state = "25006"


class ReadOnlyState(SavepointError):
    """Writing state that cannot be written yet: a stream-stream join's internal stores (write
    its ``left``/``right`` tables), join state format 3, transformWithState state with a TTL
    whose index families are unknown, session window aggregations and streaming limits (the
    message names the kind: ``writing session window aggregation state (Spark's
    sessionWindowStateStoreSaveExec) is not supported yet; writable kinds: ...``), unknown
    operator kinds."""

    error_class = "SAVEPOINT_READ_ONLY_STATE"
    sql_state = "25006"


class ColumnMismatch(SavepointError):
    """A write gives a column count the table does not have."""

    error_class = "SAVEPOINT_COLUMN_MISMATCH"
    sql_state = "21S01"


class TypeMismatch(SavepointError):
    """A value would need a lossy conversion; a key is not exactly the key type (a narrower
    whole number is widened: ``3`` into a ``BIGINT`` key is accepted)."""

    error_class = "SAVEPOINT_TYPE_MISMATCH"
    sql_state = "42804"


class NullKey(SavepointError):
    """A key column is NULL (a ``NULL`` literal is caught on the driver, NULLs in data in the
    write)."""

    error_class = "SAVEPOINT_NULL_KEY"
    sql_state = "23502"


class DuplicateKey(SavepointError):
    """A write gives the same key more than once."""

    error_class = "SAVEPOINT_DUPLICATE_KEY"
    sql_state = "23505"


class QueryRunning(SavepointError):
    """A streaming query of this session runs on the checkpoint being written."""

    error_class = "SAVEPOINT_QUERY_RUNNING"
    sql_state = "55006"


class QueryAlive(SavepointError):
    """The checkpoint's query may run in another driver: its last batch was committed more
    recently than twice its usual batch interval plus that batch's duration (5 s to 10 min); a
    query this driver saw stop does not count."""

    error_class = "SAVEPOINT_QUERY_ALIVE"
    sql_state = "55006"


class ConcurrentWrite(SavepointError):
    """Another writer holds the batch (its claim file; or it is still writing the batch it
    planned, on this host), a running query planned it (``offsets/N+1`` appeared), or a query
    started during the edit committed it."""

    error_class = "SAVEPOINT_CONCURRENT_WRITE"
    sql_state = "40001"


class InterruptedEdit(SavepointError):
    """The last batch was planned by an edit that did not commit, and its writer is not provably
    gone (it ran on another host)."""

    error_class = "SAVEPOINT_INTERRUPTED_EDIT"
    sql_state = "55000"


class UnfinishedCheckpoint(SavepointError):
    """A read, or ``recover`` without ``--force``, of a folder a savepoint, restore, empty
    savepoint or upgrade started to write and has not finished (killed); its ``metadata`` file
    still holds the action's claim, which Spark cannot read, so a query started there fails
    instead of starting from scratch."""

    error_class = "SAVEPOINT_UNFINISHED_CHECKPOINT"
    sql_state = "42000"


class TransactionConflict(SavepointError):
    """A statement of an edit transaction (``with edit(spark) as tx``, ``sql --atomic``) edits
    another checkpoint than the transaction's (statements on one table are no conflict: each
    sees the ones before it, and they fold into one batch)."""

    error_class = "SAVEPOINT_TRANSACTION_CONFLICT"
    sql_state = "25000"


class TransactionEnded(SavepointError):
    """A statement or call for an edit transaction that was committed or rolled back."""

    error_class = "SAVEPOINT_TRANSACTION_ENDED"
    sql_state = "25000"


class NotAnEdit(SavepointError):
    """``undo`` of a batch no edit committed (the query's own, or none was edited)."""

    error_class = "SAVEPOINT_NOT_AN_EDIT"
    sql_state = "22023"


class UndoConflict(SavepointError):
    """``undo`` of an edit whose keys a later batch changed again."""

    error_class = "SAVEPOINT_UNDO_CONFLICT"
    sql_state = "40001"


class UnknownPartitioning(SavepointError):
    """A write of state that its query placed by the partitioning of its input, not by all key
    columns (offsets/N does not record
    ``spark.sql.streaming.statefulOperator.useStrictDistribution=true``, as for every query
    started before Spark 3.3), that names no placing columns."""

    error_class = "SAVEPOINT_UNKNOWN_PARTITIONING"
    sql_state = "42000"


class PartitioningMismatch(SavepointError):
    """``partitioned_by`` places some stored key elsewhere than the partition it lives in
    (checked against every stored key before anything is written)."""

    error_class = "SAVEPOINT_PARTITIONING_MISMATCH"
    sql_state = "42000"


class PartitionMismatch(SavepointError):
    """Internal: a row reached the wrong state partition (please report it)."""

    error_class = "SAVEPOINT_PARTITION_MISMATCH"
    sql_state = "42000"


class InternalError(SavepointError):
    """Internal: the tool reached a state its own code rules out (a write task's commit message
    of another class loader, a flat column that does not match its state field, ...); raised as
    a ``java.lang.IllegalStateException`` whose message starts with the class."""

    error_class = "SAVEPOINT_INTERNAL"
    sql_state = "XX000"


class CorruptFile(SavepointError):
    """A file exists but cannot be read: ``commits/N``, ``offsets/N``, ``metadata``, operator
    metadata (``state/<op>/_metadata/``, also a transformWithState operator's properties that do
    not say whether a state variable has a TTL: a write never assumes it has none), state schema
    files, state files (``.delta``, ``.changelog``, ``.zip``, ``.snapshot``)."""

    error_class = "SAVEPOINT_CORRUPT_FILE"
    sql_state = "58030"


class StateTooLarge(SavepointError):
    """A state partition does not fit in the task's heap: Spark's HDFS-backed provider holds a
    whole partition on the heap to read or change it (a full INSERT OVERWRITE does not: its
    images keep no entries)."""

    error_class = "SAVEPOINT_OUT_OF_MEMORY"
    sql_state = "53200"


class MovedCheckpoint(SavepointError):
    """A transformWithState checkpoint copied elsewhere after its original was removed, without
    its own ``state/<op>/_stateSchema/`` files: Spark records its state schema files by absolute
    path in ``state/<op>/_metadata/v2/*`` and opens them there. (A copy that has them reads and
    edits: the tool reads them under the copy.)."""

    error_class = "SAVEPOINT_MOVED_CHECKPOINT"
    sql_state = "42000"


class CheckpointIOError(SavepointError):
    """The file system failed while listing or reading the checkpoint."""

    error_class = "SAVEPOINT_IO"
    sql_state = "58030"


class UpgradeRefused(SavepointError):
    """``upgrade apply`` of an incompatible upgrade (a key of another type, a narrowed column,
    other sources), of one that drops state without ``--allow-drop``, or of changed
    transformWithState variables."""

    error_class = "SAVEPOINT_UPGRADE_REFUSED"
    sql_state = "42000"


class WriteFailed(SavepointError):
    """The file system failed during a write (rolled back)."""

    error_class = "SAVEPOINT_WRITE_FAILED"
    sql_state = "58030"


class RepairRefused(SavepointError):
    """``spark-savepoint repair`` refused: an earlier repair of the checkpoint did not finish
    (its backup is there, not applied), or ``repair --undo`` found no repair to undo."""

    error_class = "SAVEPOINT_REPAIR_REFUSED"
    sql_state = "55000"


class RestoreUnsupported(SavepointError):
    """A restore Spark could not run: transformWithState or a format-v2 checkpoint onto
    HDFS-backed state, repartitioning a global aggregation or an operator whose key partitioning
    is not known (session windows, ``op_N``)."""

    error_class = "SAVEPOINT_RESTORE_UNSUPPORTED"
    sql_state = "0A000"


class ChecksumMismatch(SavepointError):
    """Restore of a savepoint whose file is missing or differs in size or SHA-256 from
    ``_savepoint.json`` (checked before anything is written)."""

    error_class = "SAVEPOINT_CHECKSUM_MISMATCH"
    sql_state = "58030"


class ReadOnlySavepoint(SavepointError):
    """INSERT/DELETE through the catalog into a savepoint not taken ``--writable`` nor attached
    ``writable=True``."""

    error_class = "SAVEPOINT_READ_ONLY_SAVEPOINT"
    sql_state = "25006"


class NotASavepoint(SavepointError):
    """Dispose of a folder without ``_savepoint.json``."""

    error_class = "SAVEPOINT_NOT_A_SAVEPOINT"
    sql_state = "42704"


class NoSuchProcedure(SavepointError):
    """``CALL <catalog>.system.<name>`` of an unknown procedure."""

    error_class = "SAVEPOINT_NO_SUCH_PROCEDURE"
    sql_state = "42000"


class TargetNotEmpty(SavepointError):
    """``create_savepoint`` / ``spark-savepoint create``, savepoint take or restore into a
    non-empty folder."""

    error_class = "SAVEPOINT_TARGET_NOT_EMPTY"
    sql_state = "42000"


class JvmPieceMissing(SavepointError):
    """``attach`` on a running session whose driver class loader takes no jars at run time (not
    Spark's own submit loader)."""

    error_class = "SAVEPOINT_JAR_MISSING"
    sql_state = "56038"


class JarBuildError(SavepointError, RuntimeError):
    """The spark-savepoint jar is missing or out of date for its sources and pyspark, and cannot
    be built: no JDK 17+ (``javac``; ``java`` runs the JVM unit tests), ``javac`` fails, or
    neither ``catalog/jvm/`` nor ``~/.cache/spark-savepoint/`` can be written."""

    error_class = "SAVEPOINT_JAR"
    sql_state = "58000"


class SparkVersionUnsupported(SavepointError):
    """The tool was asked to run on a Spark version it has no jar for (it runs on the versions
    of ``jar.SPARK_VERSIONS``; it reads checkpoints of every version), or a feature needs a
    newer Spark than the one it runs on."""

    error_class = "SAVEPOINT_SPARK_VERSION"
    sql_state = "0A000"


class BadSourcePosition(SavepointError):
    """An UPDATE or MERGE of ``sources.offsets`` that a source cannot honour: a file source
    index outside its log, NULL or negative offsets, added or removed rows, changed topic or
    source, a source whose position cannot be set."""

    error_class = "SAVEPOINT_BAD_SOURCE_POSITION"
    sql_state = "42000"


class BadWatermark(SavepointError):
    """An UPDATE, MERGE or DELETE of ``query.batches`` other than setting the last batch's
    watermark: an earlier batch, another column, added or removed rows, two different values,
    NULL or a time before 1970."""

    error_class = "SAVEPOINT_BAD_WATERMARK"
    sql_state = "42000"


class NoSinkLog(SavepointError):
    """``<catalog>.sink.files`` without the catalog's ``sink`` option, or with one that is no
    file sink's output."""

    error_class = "SAVEPOINT_NO_SINK_LOG"
    sql_state = "42000"


class PortInUse(SavepointError):
    """``spark-savepoint thriftserver`` or ``connect`` on a taken port (checked before Spark
    starts)."""

    error_class = "SAVEPOINT_PORT_IN_USE"
    sql_state = "55006"


class InsecureBind(SavepointError):
    """``spark-savepoint thriftserver --bind`` to an address other than loopback with no
    credential (no ``--password-file``, no ``--hiveconf
    hive.server2.authentication=LDAP/KERBEROS/PAM/CUSTOM``), checked before Spark starts."""

    error_class = "SAVEPOINT_INSECURE_BIND"
    sql_state = "28000"


class CredentialFileError(SavepointError):
    """``thriftserver --password-file`` or ``connect --token-file`` names a file that is
    missing, empty, or readable by other users than its owner, checked before Spark starts."""

    error_class = "SAVEPOINT_CREDENTIAL_FILE"
    sql_state = "F0000"


class ConnectUnsupported(SavepointError):
    """A function that plans a streaming DataFrame in the Spark driver's JVM called with a Spark
    Connect session (``upgrade_check``/``upgrade_apply``, ``attach(query=...)``)."""

    error_class = "SAVEPOINT_CONNECT_UNSUPPORTED"
    sql_state = "0A000"


class MissingBootstrapColumns(SavepointError):
    """A bootstrap table function (``group_state_bootstrap``,
    ``transform_with_state_bootstrap``) is given a history table without the key or order
    columns it was defined with (a ``ValueError`` when Spark analyzes the call)."""

    error_class = "SAVEPOINT_BOOTSTRAP_COLUMNS"
    sql_state = "42703"


# </error-conditions>


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
