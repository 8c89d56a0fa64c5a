"""An S3-compatible server for tests: moto's server mode (``moto[server]``, from the test extra)
in a process of its own on loopback, answering one request at a time (``moto_serial``), and
what a Spark driver needs to reach it through Hadoop's S3A connector: ``hadoop-aws`` (the Hadoop
release pyspark ships) and the AWS SDK v2 modules it loads, fetched once with Maven (about 18 MB;
not the SDK's 600 MB bundle jar).

    with start_s3() as s3:
        s3.create_bucket("ckpt")
        conf = s3a_conf(s3.endpoint)   # spark.jars, spark.hadoop.fs.s3a.*: for a new driver

A running session cannot take these jars, so S3 tests run their Spark work in a driver of
its own (``tests.support.store_driver``) started with ``s3a_conf``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from tests.support import REPO_ROOT
from tests.support.jars import SetupError, accepts, die_with_parent, fetched, free_ports

HADOOP_VERSION = "3.5.0"
AWS_SDK_VERSION = "2.40.2"
POM = Path(__file__).with_name("s3") / "s3a-pom.xml"
ACCESS_KEY = "testing"
SECRET_KEY = "testing"
REGION = "us-east-1"


def s3a_jars() -> list[Path]:
    """``hadoop-aws`` and the SDK modules it needs beside pyspark's jars, fetched on first use."""
    return fetched(
        POM,
        f"hadoop-aws-{HADOOP_VERSION}-sdk-{AWS_SDK_VERSION}",
        {"hadoop.version": HADOOP_VERSION, "aws.sdk.version": AWS_SDK_VERSION},
    )


def s3a_conf(endpoint: str) -> dict[str, str]:
    """Spark settings of a driver that reads and writes ``s3a://`` paths on ``endpoint``: the
    jars on the driver's classpath (and shipped to executors), path-style requests over plain
    HTTP, fixed credentials."""
    jars = [str(jar) for jar in s3a_jars()]
    hadoop = {
        "fs.s3a.endpoint": endpoint,
        "fs.s3a.endpoint.region": REGION,
        "fs.s3a.path.style.access": "true",
        "fs.s3a.connection.ssl.enabled": "false",
        "fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        "fs.s3a.access.key": ACCESS_KEY,
        "fs.s3a.secret.key": SECRET_KEY,
        # moto's HTTP server answers "Expect: 100-continue" in a way the SDK takes for an error:
        # no such header on plain PUTs, and local files (RocksDB's SSTs) uploaded through them
        # rather than through the SDK's transfer manager (its async client sends the header)
        "fs.s3a.connection.expect.continue": "false",
        "fs.s3a.optimized.copy.from.local.enabled": "false",
        "fs.s3a.attempts.maximum": "3",
        "fs.s3a.retry.limit": "3",
    }
    return {
        "spark.jars": ",".join(jars),
        "spark.driver.extraClassPath": ":".join(jars),
        **{f"spark.hadoop.{key}": value for key, value in hadoop.items()},
    }


class S3Server:
    """A running moto server; ``endpoint`` is ``http://127.0.0.1:<port>``. A context manager:
    leaving it stops the server (its buckets live in its memory only)."""

    def __init__(self, port: int, process: subprocess.Popen, log: IO[bytes]):
        self.port = port
        self.endpoint = f"http://127.0.0.1:{port}"
        self.process = process
        self._log = log

    def log_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines of the server's output."""
        self._log.seek(0)
        return "\n".join(self._log.read().decode(errors="replace").splitlines()[-lines:])

    def create_bucket(self, name: str) -> None:
        """Create bucket ``name``."""
        import boto3

        client = boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name=REGION,
        )
        client.create_bucket(Bucket=name)

    def stop(self, timeout: float = 10) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout`` seconds)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()

    def __enter__(self) -> S3Server:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def start_s3(timeout: float = 60) -> S3Server:
    """Start moto's server on a free loopback port; returns once it accepts connections, or
    raises ``SetupError`` with the end of its log."""
    [port] = free_ports(1)
    # one request at a time: moto's own threaded server lets two racing conditional PUTs win
    command = [sys.executable, "-m", "tests.support.moto_serial", "127.0.0.1", str(port)]
    log = tempfile.TemporaryFile()  # one line per request: a pipe nobody reads would fill up
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                               cwd=REPO_ROOT, preexec_fn=die_with_parent())  # fmt: skip
    server = S3Server(port, process, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if accepts(port):
            return server
        time.sleep(0.1)
    server.stop(timeout=2)
    raise SetupError(f"moto server did not start (exit {process.returncode}): {server.log_tail()}")
