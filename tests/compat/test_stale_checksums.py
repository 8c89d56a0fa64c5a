"""Log files changed by hand after Spark wrote them read as Spark reads them, with a warning.

Hadoop's local file system keeps a ``.<file>.crc`` beside every file; Spark's checkpoint file
manager opens checkpoint files without checking it, so a hand-edited ``offsets/N`` (as in the
4.0.0 transformWithState goldens) restarts in Spark. The catalog reads it too, says so in
``metadata.warnings`` and in ``inspect``, and an edit writes its new entries with checksums that
match them.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

from spark_savepoint import attach, inspect_checkpoint
from spark_savepoint.sql_ext.cli.report_text import summary
from tests.compat.golden import as_compared
from tests.compat.spark_goldens import GOLDENS
from tests.compat.state_reader import read_state

CATALOG = "crc"
GOLDEN = next(g for g in GOLDENS if g.id == "3.5.1-streaming-deduplication")
STALE = "offsets/1 does not match its Hadoop checksum file offsets/.1.crc: it was changed after"


def crc_matches(file: Path) -> bool:
    """Whether ``file`` matches its Hadoop checksum file: a ``crc\\0`` header, the bytes per
    checksum, then the CRC32 of each chunk."""
    sums = (file.parent / f".{file.name}.crc").read_bytes()
    assert sums[:4] == b"crc\0"
    (per_chunk,) = struct.unpack(">i", sums[4:8])
    data = file.read_bytes()
    chunks = [data[i : i + per_chunk] for i in range(0, len(data), per_chunk)]
    return sums[8:] == b"".join(struct.pack(">I", zlib.crc32(c)) for c in chunks)


def _edit_by_hand(entry: Path) -> None:
    """Change the batch timestamp in place, as a person would, leaving the ``.crc`` as it was."""
    version, metadata, *rest = entry.read_text().split("\n")
    fields = json.loads(metadata)
    fields["batchTimestampMs"] += 1
    entry.write_text("\n".join([version, json.dumps(fields, separators=(",", ":")), *rest]))


def test_a_hand_edited_offsets_entry_reads_with_a_warning(spark, tmp_path: Path) -> None:
    copy = GOLDEN.copy(tmp_path / "copy")
    _edit_by_hand(copy / "offsets" / "1")
    assert not crc_matches(copy / "offsets" / "1")
    attach(spark, str(copy), CATALOG)

    rows = spark.sql(f"SELECT uid, warnings FROM {CATALOG}.metadata").collect()
    assert rows and all(len(r.warnings) == 1 and r.warnings[0].startswith(STALE) for r in rows)
    table = GOLDEN.tables[0]
    got = spark.table(f"{CATALOG}.{table.name}").select("*", "partition_id").collect()
    assert as_compared(got) == as_compared(read_state(spark, GOLDEN.folder, table.options))

    report = inspect_checkpoint(spark, str(copy), rows=False, catalog=CATALOG)
    assert [w[: len(STALE)] for w in report.warnings] == [STALE]
    assert f"\nwarning: {STALE}" in summary(report)


def test_an_edit_writes_entries_whose_checksums_match(spark, tmp_path: Path) -> None:
    copy = GOLDEN.copy(tmp_path / "copy")
    _edit_by_hand(copy / "offsets" / "1")
    attach(spark, str(copy), CATALOG)
    spark.conf.set("spark.savepoint.write.force", "true")
    try:
        spark.sql(f"DELETE FROM {CATALOG}.dedup_0.default WHERE _1 = 'a'")
    finally:
        spark.conf.unset("spark.savepoint.write.force")
    assert (copy / "offsets" / "2").read_text() == (copy / "offsets" / "1").read_text()
    assert crc_matches(copy / "offsets" / "2") and crc_matches(copy / "commits" / "2")
    now = spark.sql(f"SELECT warnings FROM {CATALOG}.metadata").first()
    before = spark.sql(f"SELECT warnings FROM {CATALOG}.metadata VERSION AS OF 1").first()
    assert now.warnings == [] and before.warnings[0].startswith(STALE)
