"""Self-contained subprocess runs that a test module starts early and collects later, one at a
time in a thread of the test session; the session-long queue at the lowest CPU priority.

The suite's own tests keep CI's two cores only about 60% busy (one SparkSession, mostly one task
at a time), and a run of another Spark version needs nothing of this session: started when the
session starts, it uses what the suite leaves idle, and its tests find it done. A module opts in
with a ``start_background(tmp_path_factory)`` function, which ``tests/conftest.py`` calls once
when any of its tests is selected.

    from tests.support.background import RUNS
    RUNS.start("spark-3.5", [python, "-m", "tests.support.version_run", args], cwd=root)
    RUNS.result("spark-3.5")  # waits for it: a CompletedProcess
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

LOWEST = 19
"""``nice`` 19: a CPU weight of under 2% of the suite's own processes' when both want a core, so
a run the suite does not wait for yet takes only what the suite leaves idle."""

_LANES: list[BackgroundRuns] = []


@dataclass
class _Run:
    args: list[str]
    cwd: Path
    env: Mapping[str, str] | None
    timeout: float
    stdin: str | None
    done: threading.Event = field(default_factory=threading.Event)
    result: subprocess.CompletedProcess[str] | None = None
    error: BaseException | None = None


class BackgroundRuns:
    """Named subprocesses run one after another, in the order started, by one daemon thread
    (one at a time: more Spark JVMs beside the suite's would take its cores), at ``niceness``.
    ``RUNS`` is the session's queue, at the lowest priority; a module whose tests wait for its
    runs soon keeps its own lane at the suite's priority (0)."""

    def __init__(self, niceness: int = 0) -> None:
        self.niceness = niceness
        self._runs: dict[str, _Run] = {}
        self._queue: list[_Run] = []
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._process: subprocess.Popen[str] | None = None
        self._closed = False
        _LANES.append(self)

    def start(
        self,
        name: str,
        args: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        timeout: float = 1800,
        stdin: str | None = None,
    ) -> None:
        """Queue ``args`` as run ``name`` (a name already started is left alone); ``timeout``
        counts from when it begins."""
        with self._lock:
            if name in self._runs or self._closed:
                return
            run = _Run([str(a) for a in args], Path(cwd), env, timeout, stdin)
            self._runs[name] = run
            self._queue.append(run)
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, daemon=True)
                self._worker.start()

    def result(self, name: str) -> subprocess.CompletedProcess[str]:
        """Run ``name``'s outcome, waiting for it; its exit code is not checked."""
        run = self._runs[name]
        run.done.wait()
        if run.error is not None:
            raise RuntimeError(f"background run {name!r} failed to run") from run.error
        assert run.result is not None
        return run.result

    def close(self) -> None:
        """Drops the queued runs and kills the one running (the session is over)."""
        with self._lock:
            self._closed = True
            self._queue.clear()
            if self._process is not None and self._process.poll() is None:
                self._process.kill()

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._worker = None
                    return
                run = self._queue.pop(0)
            try:
                run.result = self._run(run)
            except BaseException as error:  # noqa: BLE001 - handed to whoever waits for it
                run.error = error
            finally:
                run.done.set()

    def _run(self, run: _Run) -> subprocess.CompletedProcess[str]:
        started = time.monotonic()
        with self._lock:
            if self._closed:
                raise RuntimeError("the test session ended before this run began")
            nice = ["nice", "-n", str(self.niceness)] if self.niceness else []
            process = subprocess.Popen(
                [*nice, *run.args], cwd=run.cwd, env=run.env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
            self._process = process
        try:
            out, err = process.communicate(run.stdin, timeout=run.timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            err += f"\n[background run killed after {time.monotonic() - started:.0f} s]"
        finally:
            with self._lock:
                self._process = None
        return subprocess.CompletedProcess(run.args, process.returncode, out, err)


def close_all() -> None:
    """Ends every lane's runs (the test session is over)."""
    for lane in _LANES:
        lane.close()


RUNS = BackgroundRuns(niceness=LOWEST)
"""The session's background runs, in one queue, at the lowest priority."""
