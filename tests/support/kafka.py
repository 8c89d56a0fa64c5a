"""A real Kafka broker for tests: its jars and Spark's Kafka connector fetched once with Maven,
a single-node KRaft broker (broker and controller in one ``java`` process) on loopback, topics,
and rows written to them by a Spark batch write.

    with start_broker() as broker:
        create_topic(broker.bootstrap, "words", partitions=2)
        produce(spark, broker.bootstrap, "words", [(0, "k", "apple"), (1, "k", "pear")])

The jars are kept in the cache of ``tests.support.jars`` (``$SPARK_SAVEPOINT_TEST_JARS``,
default ``~/.cache/spark-savepoint/test-jars``); a failed fetch raises ``jars.SetupError``, a
broker or topic tool that does not come up ``KafkaSetupError`` (a ``SetupError``).
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from tests.support.jars import (
    SHORT_LIVED_JVM,
    SetupError,
    accepts,
    die_with_parent,
    fetched,
    free_ports,
    java,
    java_classpath,
    reason,
)

KAFKA_VERSION = "4.1.1"
SPARK_KAFKA_VERSION = "4.2.0"
POMS = Path(__file__).with_name("kafka")
STARTED = "Kafka Server started"


class KafkaSetupError(SetupError):
    """The broker or a topic tool did not come up."""


def broker_jars() -> list[Path]:
    """The classpath of a Kafka broker and its ``TopicCommand``, fetched on first use."""
    return fetched(
        POMS / "broker-pom.xml", f"kafka-broker-{KAFKA_VERSION}", {"kafka.version": KAFKA_VERSION}
    )


def connector_jars() -> list[Path]:
    """Spark's Kafka connector and the jars pyspark lacks for it, for ``spark.jars``."""
    return fetched(
        POMS / "connector-pom.xml",
        f"spark-sql-kafka-{SPARK_KAFKA_VERSION}",
        {"spark.kafka.version": SPARK_KAFKA_VERSION},
    )


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
    port, controller = free_ports(2)
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
    return [java(), f"-Xmx{heap}", *SHORT_LIVED_JVM,
            "-Djava.awt.headless=true", f"-Dorg.slf4j.simpleLogger.defaultLogLevel={log_level}",
            "-cp", java_classpath(jars), main, *args]  # fmt: skip


def _format_storage(jars: list[Path], config: Path) -> None:
    """``kafka-storage format`` with a new cluster id (a base64url UUID, as Kafka writes; never
    starting with ``-``, as Kafka's own ``Uuid.randomUuid`` ensures: the tool's argument parser
    takes such a value for an option, and one run in 64 failed with "expected one argument")."""
    cluster = "-"
    while cluster.startswith("-"):
        cluster = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
    command = _jvm(jars, "kafka.tools.StorageTool", "format", "-t", cluster, "-c", str(config))
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise KafkaSetupError(f"formatting Kafka storage failed: {reason(done)}")


def _launch(jars: list[Path], config: Path, log: Path) -> subprocess.Popen:
    command = _jvm(jars, "kafka.Kafka", str(config), heap="256m", log_level="info")
    with open(log, "wb") as out:
        return subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent(),
        )


def _await_ready(broker: Broker, deadline: float) -> None:
    """Wait for the log's "Kafka Server started" and an accepting port."""
    while time.monotonic() < deadline:
        if broker.process.poll() is not None:
            raise KafkaSetupError(
                f"Kafka broker exited with code {broker.process.returncode}:\n{broker.log_tail()}"
            )
        if STARTED in broker.log.read_text(errors="replace") and accepts(broker.port):
            return
        time.sleep(0.1)
    raise KafkaSetupError(f"Kafka broker not ready in time:\n{broker.log_tail()}")


def create_topic(bootstrap: str, topic: str, partitions: int = 1, timeout: float = 60) -> None:
    """Create ``topic`` with ``partitions`` partitions (replication factor 1) through Kafka's
    own ``TopicCommand``."""
    command = _jvm(broker_jars(), "org.apache.kafka.tools.TopicCommand",
                   "--bootstrap-server", bootstrap, "--create", "--topic", topic,
                   "--partitions", str(partitions), "--replication-factor", "1")  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    if done.returncode != 0:
        raise KafkaSetupError(f"creating Kafka topic {topic} failed: {reason(done)}")


def produce(spark: Any, bootstrap: str, topic: str, rows: list[tuple[int, str, str]]) -> None:
    """Write ``(partition, key, value)`` rows to ``topic`` with a Spark batch write; ``spark``
    must have ``connector_jars`` on its classpath."""
    frame = spark.createDataFrame(rows, "partition int, key string, value string")
    writer = frame.write.format("kafka").option("kafka.bootstrap.servers", bootstrap)
    writer.option("topic", topic).save()
