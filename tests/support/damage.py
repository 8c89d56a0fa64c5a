"""Damage done by hand to a copy of a checkpoint, as it happens in the field: a file cut short,
a log edited in an editor, a checksum file gone (as on HDFS and S3, which keep none)."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

from tests.support.streaming_queries import StreamingQuery, build, restart_rows

NOT_DAMAGE = ("STATE_NEVER_EVICTED",)
"""Finding classes about how the query is written, not about damage to its checkpoint: the
running count per user these tests damage has no watermark (``STATE_NEVER_EVICTED``)."""


def damage_of(findings: tuple[Any, ...]) -> tuple[Any, ...]:
    """The doctor's ``findings`` about damage (without :data:`NOT_DAMAGE`)."""
    return tuple(f for f in findings if f.check not in NOT_DAMAGE)


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


CHANGELOG_OFF = {"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "false"}
FORMAT_2 = {"spark.sql.streaming.stateStore.checkpointFormatVersion": "2"}
LAYOUTS: dict[str, tuple[str, dict[str, str]]] = {
    "hdfs": ("hdfs", {}),
    "rocksdb": ("rocksdb", {}),
    "rocksdb_zip": ("rocksdb", CHANGELOG_OFF),
    "rocksdb_v2": ("rocksdb", FORMAT_2),
}
"""How state lies on disk -> (provider, settings of the query's runs): HDFS-backed deltas,
RocksDB changelogs, RocksDB with a snapshot zip per version (changelog checkpointing off), and
RocksDB of checkpoint format 2 (files named by unique ids the commits record; RocksDB only)."""


def change_files(store: Path, version: int) -> list[Path]:
    """The state files of ``version`` in one store folder (``.delta``, ``.changelog``, ``.zip``;
    format 2: ``<version>_<id>.<ext>``), checksum files aside."""
    pattern = rf"{version}(_[\w-]+)?\.(delta|changelog|zip)"
    return sorted(f for f in store.iterdir() if re.fullmatch(pattern, f.name))


def ssts_named_by(zip_file: Path) -> list[str]:
    """The SST files the RocksDB snapshot ``zip_file`` names (its metadata's ``sstFiles``)."""
    with zipfile.ZipFile(zip_file) as archive:
        manifest = json.loads(archive.read("metadata").decode().splitlines()[1])
    return [sst["dfsSstFileName"] for sst in manifest["sstFiles"]]


def three_batches(spark, kind: str, layout: str, root: Path) -> StreamingQuery:
    """A real query of ``kind`` in ``layout`` after three batches (0..2, state versions 1..3):
    the kind's default input, then its restart wave."""
    provider, confs = LAYOUTS[layout]
    query = build(spark, kind, provider, root, confs=confs)
    query.add_input(restart_rows(kind))
    query.run(spark)
    return query


class Bases(dict):
    """(kind, layout) -> :func:`three_batches` under ``root``, built when first asked for; tests
    copy their checkpoints."""

    def __init__(self, spark, root: Path) -> None:
        super().__init__()
        self.spark, self.root = spark, root

    def __missing__(self, key: tuple[str, str]) -> StreamingQuery:
        kind, layout = key
        self[key] = three_batches(self.spark, kind, layout, self.root / f"{kind}-{layout}")
        return self[key]
