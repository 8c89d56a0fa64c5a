"""``spark-savepoint doctor``: what is wrong with a checkpoint, offline, as a report whose first
line is the verdict (``--json``: as JSON), with the exit code scripts act on; and
``spark-savepoint relocate``: a checkpoint moved or copied elsewhere, its paths re-pointed;
``spark-savepoint repair``: the doctor's findings fixed as one change that ``--undo`` takes back.

It runs in a quiet local Spark session (or the active one) with the progress of its Spark jobs
(the checksums; with ``--deep``, the state loads) on stderr; see
:mod:`spark_savepoint.sql_ext.doctor` for what is checked how.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from spark_savepoint.catalog.bridge import savepoint_error
from spark_savepoint.sql_ext.cli.local import check_local, in_local_session, run_in_local_session
from spark_savepoint.sql_ext.cli.options import command, key_values
from spark_savepoint.sql_ext.cli.progress import job_progress
from spark_savepoint.sql_ext.cli.queries import add_output_mode, load_query

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from spark_savepoint.sql_ext.doctor import Verification

CANNOT_VERIFY = 3
"""The exit code when the folder could not be verified at all (missing, not a checkpoint)."""

HELP = """\
exit codes: 0 healthy (or only infos), 1 warnings only (the query restarts, but something
should be fixed), 2 errors (the query cannot restart, or would restart on wrong state),
3 the folder could not be verified (missing, not a checkpoint, unreachable).

Checks the query's logs (gaps, disorder, unreadable or newer entries, the metadata file),
every file against its checksum (Hadoop's .crc beside files on a local disk, Spark's own
state checksum files), whether the state the next batch loads can be built from the files
(snapshots, deltas, changelogs, RocksDB zips and the SST files they name, partition folders),
whether operator metadata, schema files and the offset log's settings agree, leftovers of
killed writers, and whether a query writes to it now. Each file is read at most once; nothing
is changed. --deep also loads every state table through Spark's state reader, as the restarted
query would: it finds damage no checksum covers (HDFS and object stores keep no .crc files).
Every finding class with an example and its fix: docs/doctor.md."""


RELOCATE_HELP = """\
Copies every file of every batch the checkpoint keeps (a Spark job, byte for byte, across file
systems: local, hdfs://, s3a://), keeps the query id and the times of its log entries, re-points
the absolute paths it holds (transformWithState's schema files always; a file source's log with
--source-path; a file sink's folder is copied with --sink-path, its _spark_metadata re-pointed),
then runs the doctor on the target. --move removes the source (and the sinks' old folders) only
when the target has no error. Refused while the query may run (--force: you know it is stopped).
The commit log is copied last: a relocation killed midway leaves no checkpoint a query would
continue (spark-savepoint recover TARGET empties it)."""


REPAIR_HELP = """\
Plans file-level steps from the doctor's findings and prints them first: roll the checkpoint back
to the last committed batch whose state loads (--to-batch N: to that one; its later commit and
offsets entries, state files and operator metadata go, and the query runs those batches again
from its sources), remove broken snapshots that the version builds without, damaged state files
the kept batch does not need, temporary files of killed writers and offsets planned past the one
uncommitted batch, and rewrite stale checksum files of logs. Everything it changes is kept first
in _savepoint/repairs/<id>/; --undo writes it back byte for byte. Then the doctor runs again.
A lost metadata file is written with the query id the tool's run records hold (else a new
one); lost state schema files, with --query, as the query's plan writes them. What it cannot
fix (disagreeing settings, a missing partition) is listed "by hand".
Exit code: the doctor's on the repaired checkpoint (0 healthy, 1 warnings, 2 errors)."""


def add(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``doctor``, ``repair`` and ``relocate`` to the CLI's parser."""
    doctor = command(
        subparsers, "doctor", epilog=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="verify a checkpoint offline: what is damaged, missing or left over, and the fix",
        description="Verify a checkpoint offline and report what is wrong with it.",
    )  # fmt: skip
    doctor.add_argument("path", metavar="PATH", help="checkpoint (or savepoint) folder")
    doctor.add_argument("--json", action="store_true", help="print the findings as JSON")
    doctor.add_argument(
        "--deep", action="store_true", help="also load every state table (a Spark job each)"
    )
    doctor.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    doctor.set_defaults(run=_doctor)

    repair = command(
        subparsers, "repair", epilog=REPAIR_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="fix what the doctor found, as one change that --undo takes back",
        description="Repair a checkpoint offline: roll back, remove, rewrite; undoable.",
    )  # fmt: skip
    repair.add_argument("path", metavar="PATH", help="checkpoint folder")
    repair.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    repair.add_argument("--to-batch", type=int, metavar="N", help="roll back to committed batch N")
    repair.add_argument("--undo", action="store_true", help="put back what the last repair changed")
    repair.add_argument(
        "--force", action="store_true", help="also when its query looks alive (it is stopped)"
    )
    repair.add_argument(
        "--query", metavar="MODULE:FUNCTION",
        help="the query that writes the checkpoint (a function that builds its streaming"
        " DataFrame from a SparkSession): state schema files the checkpoint lost are written"
        " as its plan writes them",
    )  # fmt: skip
    add_output_mode(repair, "the --query query")
    repair.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    repair.set_defaults(run=_repair)

    relocate = command(
        subparsers, "relocate", epilog=RELOCATE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="copy or move a checkpoint to another folder or file system, its paths re-pointed",
        description="Copy or move a checkpoint elsewhere, keeping its query id and history.",
    )  # fmt: skip
    relocate.add_argument("source", metavar="SRC", help="checkpoint folder")
    relocate.add_argument("target", metavar="DST", help="new folder (must not exist or be empty)")
    relocate.add_argument("--move", action="store_true", help="remove SRC once DST verifies")
    relocate.add_argument(
        "--sink-path", action="append", default=[], metavar="OLD=NEW",
        help="a file sink's folder that moves too: copied, its log re-pointed (repeatable)",
    )  # fmt: skip
    relocate.add_argument(
        "--source-path", action="append", default=[], metavar="OLD=NEW",
        help="a file source's input folder that moved: its log re-pointed (repeatable)",
    )  # fmt: skip
    relocate.add_argument(
        "--force", action="store_true", help="also when its query looks alive (it is stopped)"
    )
    relocate.add_argument("--master", default="local[*]", help="Spark master (%(default)s)")
    relocate.set_defaults(run=_relocate)


def _doctor(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.doctor import verify

    def run(spark: SparkSession) -> Verification:
        with job_progress(spark, "doctor"):
            return verify(spark, args.path, deep=args.deep)

    try:
        verification = run_in_local_session(args, run)
    except Exception as error:
        converted = savepoint_error(error)
        if converted is None:
            raise
        print(f"spark-savepoint: {converted}", file=sys.stderr)
        return CANNOT_VERIFY
    print(json.dumps(verification.as_dict(), indent=1) if args.json else report(verification))
    return verification.exit_code


def _repair(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.doctor import verify
    from spark_savepoint.sql_ext.repair import repair, undo_repair

    check_local([args.path])
    if args.undo:
        return in_local_session(args, lambda spark: undo_repair(spark, args.path, args.force))

    build = load_query(args.query) if args.query else None

    def run(spark: SparkSession) -> int:
        query = build(spark) if build else None
        with job_progress(spark, "repair"):
            done = repair(spark, args.path, args.dry_run, args.to_batch, args.force, query,
                          args.output_mode)  # fmt: skip
        for step in done.steps + done.by_hand:
            print(f"{step.action:<17} {step.file or '-'}\n{'':17} {step.why}")
        print(done.summary)
        if args.dry_run:
            return 0
        verification = verify(spark, args.path)
        print(verification.verdict)
        return verification.exit_code

    return run_in_local_session(args, run)


def _relocate(args: argparse.Namespace) -> int:
    from spark_savepoint.sql_ext.relocation import relocate

    check_local([args.source])
    sinks = key_values(args.sink_path, "--sink-path")
    sources = key_values(args.source_path, "--source-path")

    def run(spark: SparkSession) -> str:
        with job_progress(spark, "relocate"):
            return relocate(spark, args.source, args.target, args.move, sinks, sources, args.force)

    return in_local_session(args, run)


def report(verification: Verification) -> str:
    """The verdict, then each finding: severity, class, where, what, and the fix.

    >>> from spark_savepoint.sql_ext.doctor import Finding, Verification
    >>> print(report(Verification("/ckpt", (Finding("LOG_GAP", "warning", 2, file="offsets/2",
    ...     message="offsets/2 is missing", fix="Restore it."),))))
    /ckpt: the query restarts, but it should be fixed (1 warning)
    <BLANKLINE>
    warning  LOG_GAP  batch 2 · offsets/2
             offsets/2 is missing
             fix: Restore it.
    """
    lines = [verification.verdict]
    for finding in verification.findings:
        lines += [
            "",
            f"{finding.severity:<8} {finding.check}  {finding.where}".rstrip(),
            f"{'':8} {finding.message}",
            f"{'':8} fix: {finding.fix}",
        ]
    return "\n".join(lines)
