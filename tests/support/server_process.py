"""A ``spark-savepoint`` server command (``connect``, ``thriftserver``) run as a subprocess on a
free loopback port, ready once it printed its Ctrl-C line, stopped with SIGTERM (``env``: extra
environment variables, e.g. ``HOME`` for where ``connect`` writes its token; ``python``: the
interpreter of another virtualenv, to serve with its Spark)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """``spark-savepoint <args> --port <free port>``, its stdout lines, stderr in ``log``."""

    def __init__(
        self,
        args: list[str],
        log: Path,
        timeout: float = 600,
        env: dict[str, str] | None = None,
        python: Path | None = None,
    ) -> None:
        self.port = free_port()
        self.log = log
        interpreter = str(python or sys.executable)  # another virtualenv's: another Spark
        env = {**os.environ, "PYSPARK_PYTHON": interpreter, **(env or {})}
        command = [interpreter, "-m", "spark_savepoint", *args, "--port", str(self.port)]
        self.process = subprocess.Popen(command, cwd=log.parent, env=env, stdout=subprocess.PIPE,
                                        stderr=log.open("w"), text=True)  # fmt: skip
        self.lines: list[str] = []
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self._ready.wait(timeout) or self.process.poll() is not None:
            self.process.kill()
            pytest.fail(f"{args[0]} did not start:\n{self.log.read_text()[-3000:]}")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))
            if "Ctrl-C" in line:
                self._ready.set()
        self._ready.set()  # the server ended: no need to wait for it

    def line(self, prefix: str) -> str:
        """The rest of the first output line that starts with ``prefix``."""
        return next(line for line in self.lines if line.startswith(prefix))[len(prefix) :]

    def stop(self) -> int:
        """SIGTERM; the exit code (all output lines read)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(120)
        self._reader.join(10)
        return code
