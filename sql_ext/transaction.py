"""Several edits, one batch: the statements of a transaction are checked and run one by one
(each sees the last batch N with the earlier ones' changes), their changes are staged, and
leaving the block commits them all as batch N+1, or, on an exception, none::

    from spark_savepoint import edit
    with edit(spark) as tx:
        tx.sql("DELETE FROM savepoint.agg_0.default WHERE user = 'bot'")
        tx.sql("DELETE FROM savepoint.dedup_1.default WHERE user = 'bot'")
        for planned in tx.plan():          # optional: what the commit will do
            print(planned.summary)
    print(tx.report.summary)               # ... committed as batch 8 of '/data/ckpt'

Each statement sees the ones before it, as in a script: a table an earlier statement edited
reads as batch N with the staged changes over it (also in ``INSERT ... SELECT``, UPDATE, MERGE
and ``tx.collect(query)``), and the commit applies the statements in order, so the last change
of a key wins. All statements edit one checkpoint (another one: ``TransactionConflict``).
``edit(spark, dry_run=True)`` plans the statements and commits nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from spark_savepoint.catalog import bridge
from spark_savepoint.catalog.errors import BadArguments, SavepointError, TransactionEnded
from spark_savepoint.sql_ext import procedures
from spark_savepoint.sql_ext.dry_run import DryRun
from spark_savepoint.sql_ext.edits import EditReport
from spark_savepoint.sql_ext.statements import WRITES, one_write, parse_script, setting

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession


class Transaction:
    """An open edit transaction of one session (see :func:`edit`)."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self.id, self._conf = procedures.call_rows(spark, None, "begin_transaction")[0]
        self.open = True
        self.statements: list[str] = []
        self.report: EditReport | None = None
        """What the commit did (set when the transaction committed)."""

    def sql(self, statement: str) -> None:
        """Stage one INSERT, INSERT OVERWRITE, DELETE, UPDATE or MERGE INTO on a state table of
        a savepoint catalog: its checks and tasks run now, its changes land at the commit.

        Raises:
            BadArguments: not one write into a state table; nothing was run.
            SavepointError: what the write refuses (``DuplicateKey``, ``TransactionConflict``
                for another checkpoint, ...); the transaction stays as it was before the
                statement.
        """
        self._check_open()
        one_write(self.spark, statement, "a transaction")
        with bridge.savepoint_errors(), setting(self.spark, self._conf, self.id):
            self.spark.sql(statement)
        self.statements.append(statement)

    def collect(self, query: str) -> list[Row]:
        """The rows of ``query`` as the transaction's statements left the state (staged, not
        committed), e.g. ``tx.collect("SELECT * FROM savepoint.agg_0.default")``."""
        self._check_open()
        with bridge.savepoint_errors(), setting(self.spark, self._conf, self.id):
            return self.spark.sql(query).collect()

    def plan(self) -> list[DryRun]:
        """Per staged statement: the entries it adds, changes and removes, with samples."""
        self._check_open()
        planned = self._call("transaction_plan")
        return [DryRun(**row.asDict()) for row in planned]

    def commit(self, evicts: bool = False) -> EditReport | None:
        """Commit every staged statement as one new batch (none when nothing changed); what
        it did, or None when no statement ran. ``evicts``: the batch runs the watermark the
        last batch set for the next, as a Spark no-data batch does (input under it is late for
        the batch after): for a purge of what that watermark evicts."""
        self._check_open()
        self.open = False
        committed = procedures.call_rows(
            self.spark, None, "commit_transaction", transaction=self.id, evicts=evicts
        )
        self.report = EditReport(**committed[0].asDict()) if committed else None
        return self.report

    def rollback(self) -> None:
        """End the transaction without committing; the checkpoint stays as it was."""
        if self.open:
            self.open = False
            self._call("rollback_transaction")

    def _call(self, procedure: str) -> list[Row]:
        return procedures.call_rows(self.spark, None, procedure, transaction=self.id)

    def _check_open(self) -> None:
        if not self.open:
            raise TransactionEnded(
                f"transaction {self.id} was committed or rolled back; start a new one with"
                " edit(spark)."
            )


@contextmanager
def edit(
    spark: SparkSession, *, dry_run: bool = False, evicts: bool = False
) -> Iterator[Transaction]:
    """A transaction of edits on one checkpoint, committed as one batch when the block ends
    normally and rolled back when it raises (or, with ``dry_run``, always rolled back: use
    ``tx.plan()`` inside the block to see what it would do). Also over Spark Connect: the
    transaction is the procedures ``begin_transaction``, ``transaction_plan``,
    ``commit_transaction`` and ``rollback_transaction`` of ``<catalog>.system``. ``evicts``:
    see :meth:`Transaction.commit`."""
    tx = Transaction(spark)
    try:
        yield tx
    except BaseException:
        tx.rollback()
        raise
    if dry_run:
        tx.rollback()
    elif tx.open:
        tx.commit(evicts)


STAGED = "the transaction's earlier statements stay staged while it is open."
ROLLED_BACK = "the script's transaction was rolled back: nothing was written."


def _planned(planned: DryRun) -> str:
    """One planned write of a transaction about to commit: ``table: n added, ...``."""
    return (f"{planned.table}: {planned.added} added, {planned.changed} changed, "
            f"{planned.removed} removed")  # fmt: skip


def run_script(spark: SparkSession, script: str, *, dry_run: bool = False) -> str:
    """Every write of a SQL script in one transaction, as text for a terminal: each statement
    and what it changes, then the commit (or, with ``dry_run``, nothing written). The script is
    parsed first and must hold only writes into state tables (and ``USE``); a parse error
    names its line and column before anything runs.

    Raises:
        SqlParseError, BadArguments: the script does not parse, or holds other statements.
        SavepointError: a statement or the commit failed; nothing was committed.
    """
    from sqlglot import exp

    parsed = parse_script(script)
    for statement in parsed:
        if not isinstance(statement, (*WRITES, exp.Use)):
            raise BadArguments(
                f"--atomic takes INSERT, DELETE, UPDATE, MERGE and USE statements, not"
                f" {statement.sql('spark')!r}; nothing was run."
            )
    lines: list[str] = []
    catalog, database = spark.catalog.currentCatalog(), spark.catalog.currentDatabase()
    try:
        with edit(spark, dry_run=dry_run) as tx:
            for statement in parsed:
                text = statement.sql(dialect="spark")
                if isinstance(statement, exp.Use):
                    spark.sql(text)
                else:
                    tx.sql(text)
            for number, planned in enumerate(tx.plan(), start=1):
                lines.append(f"{number}. {tx.statements[number - 1]}")
                lines.append(f"  {planned.summary if dry_run else _planned(planned)}")
                lines += [f"    {sample}" for sample in planned.samples]
    except SavepointError as error:  # rolled back: say so (instead of what stays staged)
        message = (error.message.replace(STAGED, ROLLED_BACK) if STAGED in error.message
                   else f"{error.message} {ROLLED_BACK[0].upper()}{ROLLED_BACK[1:]}")  # fmt: skip
        raise type(error)(message, error.error_class) from None
    finally:  # the script's USE stays the script's
        if (spark.catalog.currentCatalog(), spark.catalog.currentDatabase()) != (catalog, database):
            spark.catalog.setCurrentCatalog(catalog)
            if database:  # a catalog's root (no namespace) is its current one when set
                spark.catalog.setCurrentDatabase(database)
    if dry_run:
        lines.append("dry run: nothing was written")
    elif tx.report is not None:
        lines.append(tx.report.summary)
    return "\n".join(lines)
