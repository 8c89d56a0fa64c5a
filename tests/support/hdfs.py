"""A real HDFS for tests: Hadoop's MiniDFSCluster (one NameNode, one DataNode) in a ``java``
process of its own on loopback, with the jars of ``hadoop-client-minicluster`` (the Hadoop
release pyspark ships: its ``hadoop-client-api``/``-runtime`` jars) fetched once with Maven.

    with start_hdfs() as hdfs:
        spark.range(3).write.parquet(f"{hdfs.uri}/numbers")   # hdfs://127.0.0.1:<port>

pyspark's own Hadoop client reaches it: the session needs no extra jar or setting. The cluster
stops when the block ends, and is killed when the test process dies.
"""

from __future__ import annotations

import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.support.jars import (
    SHORT_LIVED_JVM,
    SetupError,
    compiled,
    die_with_parent,
    fetched,
    java,
    java_classpath,
)

HADOOP_VERSION = "3.5.0"
HERE = Path(__file__).with_name("hdfs")
LAUNCHER = HERE / "MiniDfs.java"


def minicluster_jars() -> list[Path]:
    """``hadoop-client-minicluster`` and its runtime dependencies, fetched on first use."""
    return fetched(
        HERE / "minicluster-pom.xml",
        f"hadoop-minicluster-{HADOOP_VERSION}",
        {"hadoop.version": HADOOP_VERSION},
    )


class Hdfs:
    """A running MiniDFSCluster; ``uri`` is ``hdfs://127.0.0.1:<port>``. A context manager:
    leaving it stops the cluster and removes its folder when ``start_hdfs`` made it."""

    def __init__(self, folder: Path, process: subprocess.Popen, uri: str, owns_folder: bool):
        self.folder = folder
        self.process = process
        self.uri = uri
        self._owns_folder = owns_folder

    @property
    def log(self) -> Path:
        """The cluster's stderr."""
        return self.folder / "minidfs.log"

    def restart_namenode(self, timeout: float = 90) -> None:
        """Restart the NameNode (same port, same data); returns once it serves again."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("restart-namenode\n")
        self.process.stdin.flush()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            if select.select([self.process.stdout], [], [], 0.2)[0]:
                if self.process.stdout.readline().strip() == "restarted":
                    return
        raise SetupError(f"the NameNode did not restart: {self.log.read_text()[-3000:]}")

    def stop(self, timeout: float = 20) -> None:
        """Close the cluster's stdin (it shuts down), then SIGKILL after ``timeout`` seconds."""
        if self.process.poll() is None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        if self._owns_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Hdfs:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def start_hdfs(folder: Path | None = None, timeout: float = 90) -> Hdfs:
    """Format and start a MiniDFSCluster with its data in ``folder`` (a new temp folder if None);
    returns once it serves, or raises ``SetupError`` with the log's tail."""
    jars = minicluster_jars()
    classes = compiled(LAUNCHER, jars)
    owns_folder = folder is None
    folder = Path(tempfile.mkdtemp(prefix="minidfs-")) if folder is None else folder
    folder.mkdir(parents=True, exist_ok=True)
    command = [java(), "-Xmx384m", *SHORT_LIVED_JVM,
               "-Djava.awt.headless=true", "-cp", java_classpath([*jars, classes]),
               "MiniDfs", str(folder / "data"), "0"]  # fmt: skip
    with open(folder / "minidfs.log", "wb") as log:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=log, text=True, preexec_fn=die_with_parent())  # fmt: skip
    hdfs = Hdfs(folder, process, "", owns_folder)
    try:
        hdfs.uri = _await_ready(hdfs, time.monotonic() + timeout)
    except BaseException:
        hdfs.stop(timeout=2)
        raise
    return hdfs


def _await_ready(hdfs: Hdfs, deadline: float) -> str:
    """The URI the launcher prints (``ready hdfs://...``) once the DataNode has registered."""
    out = hdfs.process.stdout
    assert out is not None
    while time.monotonic() < deadline and hdfs.process.poll() is None:
        if select.select([out], [], [], 0.2)[0]:
            line = out.readline().strip()
            if line.startswith("ready hdfs://"):
                return line.split(" ", 1)[1]
            break
    tail = "\n".join(hdfs.log.read_text(errors="replace").splitlines()[-30:])
    raise SetupError(f"MiniDFSCluster did not start (exit {hdfs.process.poll()}):\n{tail}")
