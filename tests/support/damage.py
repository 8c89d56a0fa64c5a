"""Damage done by hand to a copy of a checkpoint, as it happens in the field: a file cut short,
a log edited in an editor, a checksum file gone (as on HDFS and S3, which keep none)."""

from __future__ import annotations

import re
from pathlib import Path


def lose(file: Path) -> None:
    """``file`` gone with its Hadoop checksum file, as a file is lost on a store without them
    (an ``rm`` of the file alone leaves an orphan checksum file: a damage of its own)."""
    file.unlink()
    (file.parent / f".{file.name}.crc").unlink(missing_ok=True)


def truncate(file: Path) -> None:
    """Cut ``file`` to half its size."""
    file.write_bytes(file.read_bytes()[: file.stat().st_size // 2])


def hand_edit(file: Path, old: str, new: str) -> None:
    """Change a log file as a person would: the text replaced, the checksum file left stale."""
    text = file.read_text()
    assert old in text, (old, text)
    file.write_text(text.replace(old, new, 1))


def without_checksum(file: Path) -> Path:
    """``file`` after removing Hadoop's checksum file beside it (as on HDFS or S3)."""
    (file.parent / f".{file.name}.crc").unlink()
    return file


def only(folder: Path, pattern: str) -> Path:
    """The one file of ``folder`` that matches ``pattern``."""
    (match,) = sorted(folder.glob(pattern))
    return match


def last_change_file(partition: Path) -> Path:
    """The change file (``.delta`` or ``.changelog``) of the partition's newest version."""
    files = [f for f in partition.iterdir() if re.fullmatch(r"\d+\.(delta|changelog)", f.name)]
    return max(files, key=lambda f: int(f.name.split(".")[0]))
