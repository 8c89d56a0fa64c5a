"""What tests look at in a checkpoint folder: its last committed batch, and every file's digest
(to show that a refused or no-op statement left it byte-identical)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def last_batch(checkpoint: Path) -> int:
    """The last committed batch id (the highest ``commits/<N>``)."""
    return max(int(p.name) for p in (checkpoint / "commits").iterdir() if p.name.isdigit())


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder`` with the sha256 of its bytes (folders: "dir")."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        if p.is_file()
        else "dir"
        for p in sorted(folder.rglob("*"))
    }
