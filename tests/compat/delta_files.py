"""The entries of an HDFS-backed state store's ``<version>.delta`` file, as raw bytes.

A delta file is compressed with the checkpoint's codec (Spark's ``CompressionCodec``, read here
through the JVM) and holds, per change, the key's length and bytes (UnsafeRow), then the value's
length and bytes, or -1 for a removal; a length of -1 ends the file.
"""

from __future__ import annotations

import struct
from pathlib import Path

from pyspark.sql import SparkSession


def delta_entries(spark: SparkSession, file: Path, codec: str) -> list[tuple[bytes, bytes | None]]:
    """``(key, value)`` per change in ``file``; ``value`` is None for a removal."""
    jvm = spark._jvm
    compression = jvm.org.apache.spark.io.CompressionCodec.createCodec(
        spark.sparkContext._conf._jconf, codec
    )
    stream = compression.compressedInputStream(jvm.java.io.FileInputStream(str(file)))
    try:
        data = bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
    finally:
        stream.close()
    entries: list[tuple[bytes, bytes | None]] = []
    at = 0
    while True:
        (key_size,) = struct.unpack_from(">i", data, at)
        at += 4
        if key_size == -1:
            return entries
        key = data[at : at + key_size]
        (value_size,) = struct.unpack_from(">i", data, at + key_size)
        at += key_size + 4
        value = None if value_size == -1 else data[at : at + value_size]
        at += max(value_size, 0)
        entries.append((key, value))
