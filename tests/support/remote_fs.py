"""What tests look at in a checkpoint that lives on a remote file system (``hdfs://``,
``s3a://``), through Hadoop's FileSystem API in a session's JVM: the local ``pathlib`` helpers
of ``checkpoint_files`` do not reach there."""

from __future__ import annotations

import threading
from typing import Any

from pyspark.sql import SparkSession

FAIL_IF_EXISTS = "FileAlreadyExistsException"


def _path(spark: SparkSession, uri: str) -> Any:
    return spark._jvm.org.apache.hadoop.fs.Path(uri)  # type: ignore[union-attr]


def _conf(spark: SparkSession) -> Any:
    return spark.sparkContext._jsc.hadoopConfiguration()  # type: ignore[union-attr]


def _fs(spark: SparkSession, uri: str) -> Any:
    return _path(spark, uri).getFileSystem(_conf(spark))


def upload(spark: SparkSession, local: str, uri: str) -> None:
    """Copy the local folder ``local`` to ``uri`` (which must not exist), without checksums."""
    _fs(spark, uri).copyFromLocalFile(False, False, _path(spark, local), _path(spark, uri))


def mkdirs(spark: SparkSession, uri: str) -> None:
    """Create folder ``uri`` and its parents."""
    _fs(spark, uri).mkdirs(_path(spark, uri))


def files(spark: SparkSession, uri: str) -> list[str]:
    """Every file under ``uri``, as a path relative to it, sorted; [] when it does not exist."""
    fs = _fs(spark, uri)
    root = fs.makeQualified(_path(spark, uri)).toUri().getPath().rstrip("/")
    if not fs.exists(_path(spark, uri)):
        return []
    found, listing = [], fs.listFiles(_path(spark, uri), True)
    while listing.hasNext():
        found.append(listing.next().getPath().toUri().getPath()[len(root) + 1 :])
    return sorted(found)


def delete(spark: SparkSession, uri: str) -> bool:
    """Remove file ``uri``; whether it was there."""
    return bool(_fs(spark, uri).delete(_path(spark, uri), False))


def last_batch(spark: SparkSession, uri: str) -> int:
    """The last committed batch id of the checkpoint at ``uri`` (the highest ``commits/<N>``)."""
    return max(int(f.split("/")[1]) for f in files(spark, uri)
               if f.startswith("commits/") and f.split("/")[1].isdigit())  # fmt: skip


def write_new(spark: SparkSession, uri: str, text: str) -> str:
    """Create file ``uri`` the way an edit claims ``offsets/<b>`` (the tool's own fail-if-exists
    primitive, ``CheckpointFiles.writeNew``): ``"ok"``, or ``"exists"`` when it refused."""
    files_class = spark._jvm.dev.sparksavepoint.checkpoint.CheckpointFiles  # type: ignore[union-attr]
    try:
        files_class.writeNew(_path(spark, uri), bytearray(text.encode()), _conf(spark))
    except Exception as error:
        if FAIL_IF_EXISTS in str(error):
            return "exists"
        raise
    return "ok"


def race_write_new(spark: SparkSession, uri: str, writers: int) -> list[str]:
    """``writers`` threads call ``write_new`` on ``uri`` at the same moment, writer ``w`` with
    text ``v1\nwriter <w>``: each writer's outcome (``"ok"``/``"exists"``), in writer order."""
    barrier = threading.Barrier(writers)
    results = [""] * writers

    def claim(writer: int) -> None:
        barrier.wait()
        results[writer] = write_new(spark, uri, f"v1\nwriter {writer}")

    threads = [threading.Thread(target=claim, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def conditional_create(spark: SparkSession, uri: str) -> bool:
    """Whether the store of ``uri`` creates files conditionally (``If-None-Match`` on S3A),
    the test ``CheckpointFiles.writeNew`` makes to choose its primitive."""
    files_class = spark._jvm.dev.sparksavepoint.checkpoint.CheckpointFiles  # type: ignore[union-attr]
    capability = files_class.CONDITIONAL_CREATE
    return bool(_fs(spark, uri).hasPathCapability(_path(spark, uri), capability))


def read_text(spark: SparkSession, uri: str) -> str:
    """The content of file ``uri`` as text."""
    stream = _fs(spark, uri).open(_path(spark, uri))
    try:
        data = spark._jvm.org.apache.commons.io.IOUtils.toByteArray(stream)  # type: ignore[union-attr]
    finally:
        stream.close()
    return bytes(data).decode()
