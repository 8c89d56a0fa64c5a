"""``verify``: what is wrong with a checkpoint, found offline (the checkpoint doctor).

``CALL <catalog>.system.verify()`` (``dev.sparksavepoint.doctor.Doctor``) reads the query's
logs, a listing of every file, each file that has a checksum once (a Spark job) and the
metadata of the RocksDB snapshots the next batch loads, and returns one row per finding; it
changes no file. ``deep=True`` also loads every state table's last committed version through
Spark's own state reader, the way the restarted query loads it (a Spark job per table): it
finds damage no checksum covers (HDFS and object stores keep no ``.crc`` beside files) and
Spark's row checksums (4.1+) that do not match. docs/doctor.md lists every class.

>>> Verification("/ckpt", ()).verdict
'/ckpt: healthy'
>>> Verification("/ckpt", (Finding("LOG_GAP", "warning"),)).exit_code
1
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from spark_savepoint.catalog.bridge import savepoint_errors
from spark_savepoint.catalog.errors import SavepointError
from spark_savepoint.sql_ext import procedures
from spark_savepoint.sql_ext.session import attach

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SEVERITIES = ("error", "warning", "info")
"""Most severe first: ``error`` = the query cannot restart, or would restart on wrong state;
``warning`` = it restarts, but something should be fixed; ``info`` = worth knowing."""

EXIT_CODES = {"error": 2, "warning": 1}
"""``spark-savepoint doctor``'s exit code by the most severe finding; 0 otherwise."""

UNLOADABLE = "STATE_UNLOADABLE"
"""The class of a deep verification's finding: Spark's reader cannot load a state table."""
UNLOADABLE_FIX = (
    "Restore the partition's state files from a copy, or roll the checkpoint back to the batch"
    " before the damage: spark-savepoint repair --to-batch N (the doctor cannot tell which file"
    " is cut short where no checksum is, so it names the batch to keep)."
)
DOCTOR_CATALOG = "spark_savepoint_doctor"
"""The catalog a deep verification attaches the checkpoint as, for its reads."""


@dataclass(frozen=True)
class Finding:
    """One thing the doctor found. ``check`` is its stable class (``STATE_FILE_MISSING``);
    batch, operator, partition and file (relative to the checkpoint) say what it is about."""

    check: str
    severity: str
    batch_id: int | None = None
    operator_id: int | None = None
    partition_id: int | None = None
    file: str | None = None
    message: str = ""
    fix: str = ""

    @property
    def where(self) -> str:
        """``batch 4 · operator 0 · partition 1 · state/0/1/4.delta`` (what is known)."""
        parts = [
            f"batch {self.batch_id}" if self.batch_id is not None else "",
            f"operator {self.operator_id}" if self.operator_id is not None else "",
            f"partition {self.partition_id}" if self.partition_id is not None else "",
            self.file or "",
        ]
        return " · ".join(p for p in parts if p)


@dataclass(frozen=True)
class Verification:
    """What ``verify`` found in one checkpoint, most severe first."""

    checkpoint: str
    findings: tuple[Finding, ...]
    deep: bool = False

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def exit_code(self) -> int:
        """2 with errors, 1 with warnings only, 0 when healthy (infos only, or nothing)."""
        return max((EXIT_CODES.get(f.severity, 0) for f in self.findings), default=0)

    @property
    def verdict(self) -> str:
        """One line: the checkpoint, what was found, and what it means for a restart."""
        counts = [
            f"{n} {severity}{'' if n == 1 else 's'}"
            for severity in SEVERITIES
            if (n := self.count(severity))
        ]
        meaning = {
            2: "the query cannot restart on it, or would restart on wrong state",
            1: "the query restarts, but it should be fixed",
            0: "healthy",
        }[self.exit_code]
        if not counts:
            return f"{self.checkpoint}: {meaning}"
        return f"{self.checkpoint}: {meaning} ({', '.join(counts)})"

    def as_dict(self) -> dict[str, Any]:
        """Plain values (for JSON), with the verdict and exit code."""
        return {**asdict(self), "verdict": self.verdict, "exit_code": self.exit_code}


def verify(spark: SparkSession, path: str, deep: bool = False) -> Verification:
    """What is wrong with the checkpoint at ``path``; nothing on disk changes.

    ``deep``: also load every state table's last committed version through Spark's state
    reader (a Spark job per table), as the restarted query would.

    >>> verify(spark, "/data/ckpt").verdict  # doctest: +SKIP
    '/data/ckpt: healthy'

    Raises:
        SavepointError: ``NoSuchCheckpoint`` or ``NotACheckpoint`` when ``path`` is not one.
    """
    rows = procedures.call_rows(spark, path, "verify")
    findings = [Finding(**{_FIELD.get(k, k): v for k, v in r.asDict().items()}) for r in rows]
    if deep and not any(f.severity == "error" for f in findings):
        findings.extend(_unloadable(spark, path))
    order = {s: i for i, s in enumerate(SEVERITIES)}
    findings.sort(key=lambda f: (order.get(f.severity, 3), f.file or "", f.check))
    return Verification(path, tuple(findings), deep)


_FIELD = {"class": "check"}

_PARTITION_FOLDER = re.compile(r"state/(\d+)/(\d+)/")


def _unloadable(spark: SparkSession, path: str) -> list[Finding]:
    """A finding per state table whose last committed version Spark's reader cannot load."""
    try:
        attach(spark, path, DOCTOR_CATALOG)
        with savepoint_errors():
            tables = spark.sql(f"SELECT * FROM `{DOCTOR_CATALOG}`.metadata").collect()
    except SavepointError:
        return []  # logs that do not read: the file checks report them
    found = []
    for meta in tables:
        if meta.operator_id is None or meta.state_kind == "join_store":
            continue
        name = ".".join(f"`{part}`" for part in meta.table_name.split(".", 2))
        query = f"SELECT partition_id, count(*) FROM {name} GROUP BY partition_id"
        try:
            with savepoint_errors():
                spark.sql(query).collect()
        except SavepointError as error:
            folder = _PARTITION_FOLDER.search(str(error))
            found.append(
                Finding(
                    UNLOADABLE,
                    "error",
                    operator_id=int(meta.operator_id),
                    partition_id=int(folder.group(2)) if folder else None,
                    file=folder.group(0).rstrip("/") if folder else f"state/{meta.operator_id}",
                    message=f"{meta.table_name} cannot be loaded: {error}",
                    fix=UNLOADABLE_FIX,
                )
            )
    return found
