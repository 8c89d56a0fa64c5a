"""A real Kafka broker for tests: its jars and Spark's Kafka connector fetched once with Maven,
a single-node KRaft broker (broker and controller in one ``java`` process) on loopback, topics,
and rows written to them by a Spark batch write.

    with start_broker() as broker:
        create_topic(broker.bootstrap, "words", partitions=2)
        produce(spark, broker.bootstrap, "words", [(0, "k", "apple"), (1, "k", "pear")])

The jars are kept in ``$SPARK_SAVEPOINT_TEST_JARS`` (default
``~/.cache/spark-savepoint/test-jars``); a failed fetch raises ``KafkaSetupError``.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import fcntl
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

KAFKA_VERSION = "4.1.1"
SPARK_KAFKA_VERSION = "4.2.0"
POMS = Path(__file__).with_name("kafka")
COMPLETE = ".complete"
STARTED = "Kafka Server started"
PR_SET_PDEATHSIG = 1
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class KafkaSetupError(RuntimeError):
    """The jars could not be fetched, or the broker or a topic tool did not come up."""


def jar_cache() -> Path:
    """The folder that keeps fetched jars between sessions."""
    default = Path.home() / ".cache" / "spark-savepoint" / "test-jars"
    return Path(os.environ.get("SPARK_SAVEPOINT_TEST_JARS") or default)


def broker_jars() -> list[Path]:
    """The classpath of a Kafka broker and its ``TopicCommand``, fetched on first use."""
    folder = jar_cache() / f"kafka-broker-{KAFKA_VERSION}"
    return _fetched(POMS / "broker-pom.xml", folder, {"kafka.version": KAFKA_VERSION})


def connector_jars() -> list[Path]:
    """Spark's Kafka connector and the jars pyspark lacks for it, for ``spark.jars``."""
    folder = jar_cache() / f"spark-sql-kafka-{SPARK_KAFKA_VERSION}"
    return _fetched(
        POMS / "connector-pom.xml", folder, {"spark.kafka.version": SPARK_KAFKA_VERSION}
    )


def _fetched(pom: Path, folder: Path, properties: dict[str, str]) -> list[Path]:
    """The jars in ``folder``, copied there by Maven unless an earlier fetch completed."""
    if not (folder / COMPLETE).exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        with _locked(folder.with_name(folder.name + ".lock")):
            if not (folder / COMPLETE).exists():
                _fetch(pom, folder, properties)
    return sorted(folder.glob("*.jar"))


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``path``, so that concurrent processes fetch once."""
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _fetch(pom: Path, folder: Path, properties: dict[str, str]) -> None:
    """Copy ``pom``'s runtime dependencies into a fresh ``folder``; the marker comes last."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise KafkaSetupError(f"cannot fetch Kafka jars for {folder.name}: mvn is not on PATH")
    shutil.rmtree(folder, ignore_errors=True)
    print(f"fetching Kafka jars with mvn (first time only): {folder}", file=sys.stderr)
    defines = [f"-D{key}={value}" for key, value in properties.items()]
    command = [mvn, "-B", "-q", "-Dstyle.color=never", "-f", str(pom), *defines,
               "dependency:copy-dependencies", "-DincludeScope=runtime",
               f"-DoutputDirectory={folder}"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0 or not any(folder.glob("*.jar")):
        raise KafkaSetupError(f"mvn could not fetch {pom.name}: {_reason(done)}")
    (folder / COMPLETE).write_text(" ".join(command) + "\n")


def _reason(done: subprocess.CompletedProcess) -> str:
    """The first Maven error line of a failed run, else its last line of output."""
    text = ANSI.sub("", done.stdout + done.stderr)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("[ERROR] ") and line[8:].strip()]
    return (errors or lines[-1:] or [f"exit code {done.returncode}"])[0]


def _java() -> str:
    """The ``java`` launcher, from ``JAVA_HOME`` if set, else from PATH."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home, "bin", "java")) if home else shutil.which("java")
    if not java or not Path(java).exists():
        raise KafkaSetupError("cannot run Kafka: no java (set JAVA_HOME or put java on PATH)")
    return java


def _classpath(jars: list[Path]) -> str:
    return os.pathsep.join(str(jar) for jar in jars)


def _free_ports(count: int) -> list[int]:
    """``count`` distinct loopback ports that were free a moment ago."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _die_with_parent() -> Callable[[], None] | None:
    """For ``preexec_fn``: the child gets SIGKILL when the test process dies (Linux only)."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return lambda: prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _server_properties(folder: Path, port: int, controller: int) -> str:
    settings = {
        "process.roles": "broker,controller",
        "node.id": "1",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "controller.quorum.voters": f"1@127.0.0.1:{controller}",
        "log.dirs": str(folder / "data"),
        "num.partitions": "1",
        "auto.create.topics.enable": "false",
        "offsets.topic.replication.factor": "1",
        "offsets.topic.num.partitions": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
    }
    return "".join(f"{key}={value}\n" for key, value in settings.items())


class Broker:
    """A running single-node KRaft broker; ``bootstrap`` is ``127.0.0.1:<port>``.

    A context manager: leaving it stops the broker. Its files live in ``folder``, which
    ``stop`` removes only when ``start_broker`` made it.
    """

    def __init__(self, folder: Path, port: int, process: subprocess.Popen, owns_folder: bool):
        self.folder = folder
        self.port = port
        self.bootstrap = f"127.0.0.1:{port}"
        self.process = process
        self._owns_folder = owns_folder

    @property
    def log(self) -> Path:
        """The broker's combined stdout and stderr."""
        return self.folder / "broker.log"

    def log_tail(self, lines: int = 30) -> str:
        """The last ``lines`` lines of the broker log."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 10) -> None:
        """Stop the broker (SIGTERM, then SIGKILL after ``timeout`` seconds)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._owns_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Broker:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def start_broker(folder: Path | None = None, timeout: float = 60) -> Broker:
    """Format storage and start a broker in ``folder`` (a new temp folder if None); returns
    once it serves clients, or raises ``KafkaSetupError`` with the log's tail."""
    jars = broker_jars()
    owns_folder = folder is None
    folder = Path(tempfile.mkdtemp(prefix="kafka-broker-")) if folder is None else folder
    folder.mkdir(parents=True, exist_ok=True)
    port, controller = _free_ports(2)
    config = folder / "server.properties"
    config.write_text(_server_properties(folder, port, controller))
    broker = None
    try:
        _format_storage(jars, config)
        broker = Broker(folder, port, _launch(jars, config, folder / "broker.log"), owns_folder)
        _await_ready(broker, time.monotonic() + timeout)
    except BaseException:
        if broker is not None:
            broker.stop(timeout=2)
        elif owns_folder:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return broker


def _jvm(
    jars: list[Path], main: str, *args: str, heap: str = "128m", log_level: str = "warn"
) -> list[str]:
    """A ``java`` command line running ``main`` with the broker's jars."""
    return [_java(), f"-Xmx{heap}", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Djava.awt.headless=true", f"-Dorg.slf4j.simpleLogger.defaultLogLevel={log_level}",
            "-cp", _classpath(jars), main, *args]  # fmt: skip


def _format_storage(jars: list[Path], config: Path) -> None:
    """``kafka-storage format`` with a new cluster id (a base64url UUID, as Kafka writes)."""
    cluster = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
    command = _jvm(jars, "kafka.tools.StorageTool", "format", "-t", cluster, "-c", str(config))
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise KafkaSetupError(f"formatting Kafka storage failed: {_reason(done)}")


def _launch(jars: list[Path], config: Path, log: Path) -> subprocess.Popen:
    command = _jvm(jars, "kafka.Kafka", str(config), heap="256m", log_level="info")
    with open(log, "wb") as out:
        return subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent(),
        )


def _await_ready(broker: Broker, deadline: float) -> None:
    """Wait for the log's "Kafka Server started" and an accepting port."""
    while time.monotonic() < deadline:
        if broker.process.poll() is not None:
            raise KafkaSetupError(
                f"Kafka broker exited with code {broker.process.returncode}:\n{broker.log_tail()}"
            )
        if STARTED in broker.log.read_text(errors="replace") and _accepts(broker.port):
            return
        time.sleep(0.1)
    raise KafkaSetupError(f"Kafka broker not ready in time:\n{broker.log_tail()}")


def _accepts(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def create_topic(bootstrap: str, topic: str, partitions: int = 1, timeout: float = 60) -> None:
    """Create ``topic`` with ``partitions`` partitions (replication factor 1) through Kafka's
    own ``TopicCommand``."""
    command = _jvm(broker_jars(), "org.apache.kafka.tools.TopicCommand",
                   "--bootstrap-server", bootstrap, "--create", "--topic", topic,
                   "--partitions", str(partitions), "--replication-factor", "1")  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    if done.returncode != 0:
        raise KafkaSetupError(f"creating Kafka topic {topic} failed: {_reason(done)}")


def produce(spark: Any, bootstrap: str, topic: str, rows: list[tuple[int, str, str]]) -> None:
    """Write ``(partition, key, value)`` rows to ``topic`` with a Spark batch write; ``spark``
    must have ``connector_jars`` on its classpath."""
    frame = spark.createDataFrame(rows, "partition int, key string, value string")
    writer = frame.write.format("kafka").option("kafka.bootstrap.servers", bootstrap)
    writer.option("topic", topic).save()
