"""JVM pieces that tests fetch once and run: jars copied by Maven from a pom's dependencies into
a cache folder shared by every test session, small launcher classes compiled with ``javac``
into that cache, and the process helpers of servers the tests start (``java``, free loopback
ports, a child that dies with the test process).

The cache is ``$SPARK_SAVEPOINT_TEST_JARS`` (default ``~/.cache/spark-savepoint/test-jars``);
a failed fetch or compilation raises ``SetupError``.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

COMPLETE = ".complete"
PR_SET_PDEATHSIG = 1
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class SetupError(RuntimeError):
    """Jars could not be fetched or compiled, or a server the tests need did not come up."""


def jar_cache() -> Path:
    """The folder that keeps fetched jars between sessions."""
    default = Path.home() / ".cache" / "spark-savepoint" / "test-jars"
    return Path(os.environ.get("SPARK_SAVEPOINT_TEST_JARS") or default)


def fetched(pom: Path, name: str, properties: dict[str, str]) -> list[Path]:
    """The jars of ``pom``'s runtime dependencies in the cache folder ``name``, copied there by
    Maven unless an earlier fetch completed (concurrent processes fetch once)."""
    folder = jar_cache() / name
    if not (folder / COMPLETE).exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        with locked(folder.with_name(folder.name + ".lock")):
            if not (folder / COMPLETE).exists():
                _fetch(pom, folder, properties)
    return sorted(folder.glob("*.jar"))


def compiled(source: Path, classpath: list[Path]) -> Path:
    """A folder of the classes of ``source`` compiled against ``classpath``, in the cache under
    a name that changes with the source text, compiled once."""
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:12]
    folder = jar_cache() / f"{source.stem}-{digest}"
    if not (folder / COMPLETE).exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        with locked(folder.with_name(folder.name + ".lock")):
            if not (folder / COMPLETE).exists():
                _compile(source, folder, classpath)
    return folder


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
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
        raise SetupError(f"cannot fetch the jars of {folder.name}: mvn is not on PATH")
    shutil.rmtree(folder, ignore_errors=True)
    print(f"fetching jars with mvn (first time only): {folder}", file=sys.stderr)
    defines = [f"-D{key}={value}" for key, value in properties.items()]
    command = [mvn, "-B", "-q", "-Dstyle.color=never", "-f", str(pom), *defines,
               "dependency:copy-dependencies", "-DincludeScope=runtime",
               f"-DoutputDirectory={folder}"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0 or not any(folder.glob("*.jar")):
        raise SetupError(f"mvn could not fetch {pom.name}: {reason(done)}")
    (folder / COMPLETE).write_text(" ".join(command) + "\n")


def _compile(source: Path, folder: Path, classpath: list[Path]) -> None:
    javac = _tool("javac")
    shutil.rmtree(folder, ignore_errors=True)
    command = [javac, "--release", "17", "-nowarn", "-d", str(folder),
               "-cp", java_classpath(classpath), str(source)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SetupError(f"javac could not compile {source.name}: {reason(done)}")
    (folder / COMPLETE).write_text(" ".join(command) + "\n")


def reason(done: subprocess.CompletedProcess) -> str:
    """The first Maven error line of a failed run, else its last line of output."""
    text = ANSI.sub("", done.stdout + done.stderr)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("[ERROR] ") and line[8:].strip()]
    return (errors or lines[-1:] or [f"exit code {done.returncode}"])[0]


SHORT_LIVED_JVM = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]
"""The options of the JVMs that tests start besides the session's own (brokers, name nodes,
Spark's daemons and executors, other Spark drivers): without the C2 compiler and with the serial
collector a JVM that lives seconds to minutes costs about a third less time on two cores."""


def java() -> str:
    """The ``java`` launcher, from ``JAVA_HOME`` if set, else from PATH."""
    return _tool("java")


def _tool(name: str) -> str:
    home = os.environ.get("JAVA_HOME")
    tool = str(Path(home, "bin", name)) if home else shutil.which(name)
    if not tool or not Path(tool).exists():
        raise SetupError(f"no {name} (set JAVA_HOME or put {name} on PATH)")
    return tool


def java_classpath(entries: list[Path]) -> str:
    """``entries`` joined as a ``-cp`` value."""
    return os.pathsep.join(str(entry) for entry in entries)


def free_ports(count: int) -> list[int]:
    """``count`` distinct loopback ports that were free a moment ago."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def accepts(port: int) -> bool:
    """Whether something accepts connections on loopback ``port``."""
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def die_with_parent() -> Callable[[], None] | None:
    """For ``preexec_fn``: the child gets SIGKILL when the test process dies (Linux only)."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return lambda: prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
