"""``spark-savepoint doctor``: what is wrong with a checkpoint, offline, as a report whose first
line is the verdict (``--json``: as JSON), with the exit code scripts act on.

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
from spark_savepoint.sql_ext.cli.local import run_in_local_session
from spark_savepoint.sql_ext.cli.options import command
from spark_savepoint.sql_ext.cli.progress import job_progress

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


def add(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``doctor`` to the CLI's parser."""
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
