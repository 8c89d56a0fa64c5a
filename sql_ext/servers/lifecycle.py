"""What the in-process servers (``spark-savepoint thriftserver`` and ``connect``) share: a port
checked before Spark starts, the server's own Spark session, SIGINT/SIGTERM as the stop signal,
waiting until the server accepts connections, and stopping without a trace when the JVM is
already gone.

>>> stop = threading.Event(); stop.set()
>>> wait_until_stopped(stop)
>>> accepts_connections("127.0.0.1", free_port(), timeout=0.1)
False
"""

from __future__ import annotations

import errno
import logging
import signal
import socket
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from spark_savepoint.catalog.errors import PortInUse

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)


def check_port(bind: str, port: int, server: str) -> None:
    """Fail in one line, before Spark starts, when ``bind:port`` is taken (``server`` names
    what to start on another port: "the Thrift server")."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((bind, port))
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                raise
            raise PortInUse(
                f"Port {port} on {bind} is already in use by another process: stop it, or "
                f"start {server} on a free port with --port (e.g. --port {port + 1})."
            ) from None


def free_port(bind: str = "127.0.0.1") -> int:
    """A port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind((bind, 0))
        return int(probe.getsockname()[1])


def accepts_connections(bind: str, port: int, timeout: float) -> bool:
    """Whether a TCP connection to ``bind:port`` succeeds within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((_reachable(bind), port), timeout=1.0):
                return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)


def _reachable(bind: str) -> str:
    """The address to connect to a server bound to ``bind`` (a wildcard is reached locally)."""
    return "127.0.0.1" if bind in ("", "0.0.0.0") else "::1" if bind == "::" else bind


def new_session(app_name: str, master: str, settings: Mapping[str, str]) -> SparkSession:
    """A new SparkSession for a server: ``app_name`` on ``master`` with ``settings`` (its web
    UI off unless they turn it on)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name).master(master)
    for key, value in {"spark.ui.enabled": "false", **settings}.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def stop_on_signals(stop: threading.Event | None = None) -> threading.Event:
    """An event (``stop``, or a new one) that SIGINT (Ctrl-C) and SIGTERM set (call from the
    main thread). Call it again once Spark has started: PySpark's SparkContext installs its own
    SIGINT handler, which raises KeyboardInterrupt."""
    stop = stop or threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    return stop


def wait_until_stopped(stop: threading.Event) -> None:
    """Block until ``stop`` is set (waking each second, so signal handlers run)."""
    while not stop.wait(1.0):
        pass


def quietly(stop: Callable[[], object]) -> None:
    """Run a stop function; a JVM already ended by the same signal (process group) is fine."""
    try:
        stop()
    except Exception as error:
        log.info("while stopping: %s", str(error).splitlines()[0])
