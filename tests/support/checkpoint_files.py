"""What tests look at in a checkpoint folder: its last committed batch, and every file's digest
(to show that a refused or no-op statement left it byte-identical)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def last_batch(checkpoint: Path) -> int:
    """The last committed batch id (the highest ``commits/<N>``)."""
    return max(int(p.name) for p in (checkpoint / "commits").iterdir() if p.name.isdigit())


RUN_RECORDS = "_savepoint/runs"
"""The records a query's own listener keeps (renewed while it runs, marked when it stops): the
query's writes, not an edit's, so :func:`snapshot` leaves them out."""


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder`` with the sha256 of its bytes (folders: "dir"),
    but the query runs' records (:data:`RUN_RECORDS`)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        if p.is_file()
        else "dir"
        for p in sorted(folder.rglob("*"))
        if not str(p.relative_to(folder)).startswith(RUN_RECORDS)
    }
