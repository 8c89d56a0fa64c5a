"""Spark's own standalone cluster for tests: a master and workers on the loopback address, each
a ``java`` process of its own started from pyspark's jars (``org.apache.spark.deploy.master.Master``
and ``...worker.Worker``), as ``sbin/start-master.sh`` and ``start-worker.sh`` start them.

    with start_cluster(workers=2) as cluster:
        spark = session(master=cluster.url)     # spark://127.0.0.1:<port>

Each worker offers ``cores`` cores and 1 GB and runs its executors in JVMs of their own
(pyspark's folder is their ``SPARK_HOME``). The processes stop when the block ends, and die
with the test process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

import pyspark

from tests.support.jars import SHORT_LIVED_JVM, SetupError, die_with_parent, free_ports, java

SPARK_HOME = Path(pyspark.__file__).parent
DEPLOY = "org.apache.spark.deploy"


class Cluster:
    """A running master (``url``) and its registered workers. A context manager: leaving it kills
    every process and removes its folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.url = ""
        self.processes: list[subprocess.Popen] = []

    def log(self, name: str) -> Path:
        """The log of ``master`` or ``worker-<n>``."""
        return self.folder / f"{name}.log"

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def start_cluster(workers: int = 2, cores: int = 1, timeout: float = 120) -> Cluster:
    """Starts a master and ``workers`` workers of ``cores`` cores and 1 GB each; returns once
    every worker has registered, or raises ``SetupError`` with the logs' tails."""
    cluster = Cluster(Path(tempfile.mkdtemp(prefix="spark-standalone-")))
    try:
        port, ui = free_ports(2)
        cluster.url = f"spark://127.0.0.1:{port}"
        address = ["--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui)]
        master = _start(cluster, "master", f"{DEPLOY}.master.Master", address)
        deadline = time.monotonic() + timeout
        with open(cluster.log("master")) as log:
            _await(log, "I have been elected leader", master, deadline, cluster)
            for n in range(workers):
                work = cluster.folder / f"work-{n}"
                _start(cluster, f"worker-{n}", f"{DEPLOY}.worker.Worker",
                       ["--host", "127.0.0.1", "--cores", str(cores), "--memory", "1g",
                        "--webui-port", str(free_ports(1)[0]), "--work-dir", str(work),
                        cluster.url])  # fmt: skip
                _await(log, "Registering worker", master, deadline, cluster)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def scala_version() -> str:
    """The Scala version of pyspark's jars (``spark-core_2.13-4.3.0.jar``: ``2.13``)."""
    [core] = SPARK_HOME.glob("jars/spark-core_*.jar")
    return core.name.split("_")[1].split("-")[0]


def _start(cluster: Cluster, name: str, main: str, args: list[str]) -> subprocess.Popen:
    # a worker builds each executor's command with Spark's launcher, which needs the Scala
    # version where SPARK_HOME is no build tree (bin/load-spark-env.sh sets it as well)
    env = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1",
           "SPARK_SCALA_VERSION": scala_version(),
           "JAVA_HOME": str(Path(java()).resolve().parent.parent)}  # fmt: skip
    command = [java(), "-Xmx256m", *SHORT_LIVED_JVM, "-cp", f"{SPARK_HOME}/jars/*", main, *args]
    with open(cluster.log(name), "wb") as log:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                   env=env, preexec_fn=die_with_parent())  # fmt: skip
    cluster.processes.append(process)
    return process


def _await(log: TextIO, text: str, process: subprocess.Popen, deadline: float,
           cluster: Cluster) -> None:  # fmt: skip
    """Reads the master's log on until a line has ``text``."""
    while time.monotonic() < deadline and process.poll() is None:
        line = log.readline()
        if text in line:
            return
        if not line:
            time.sleep(0.2)
    tails = {p.name: "\n".join(p.read_text(errors="replace").splitlines()[-15:])
             for p in sorted(cluster.folder.glob("*.log"))}  # fmt: skip
    raise SetupError(f"the standalone cluster did not start ({text!r} not seen): {tails}")
