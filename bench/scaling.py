"""How the cost grows with the number of keys (100k, 1M, 5M; 50M on a machine with the memory),
both providers, and the heap a 5M-key INSERT OVERWRITE and MERGE need.

    python bench/scaling.py [--keys 100000,1000000,5000000] [--repeat 3] [--dir bench/out]
                            [--plot docs/performance-scaling.png] [--driver-memory 4g]
                            [--heap-keys 5000000] [--heap-only]

For each size (a streaming aggregation's state in 4 partitions, one micro-batch): a full read
of the catalog table (``noop`` sink), a one-key lookup (``WHERE key = <k>``), an
``INSERT OVERWRITE`` of every key (full images) and a 10-key upsert, each on a fresh copy where
it writes; best of ``--repeat``. ``--plot`` draws seconds against keys (log-log) as a PNG
(needs matplotlib: ``pip install -e ".[bench]"``). 50M keys of HDFS-backed state need about
``--driver-memory 14g``: Spark's provider loads a partition of 12.5M entries into a map (and a
copy) to build or read it.

Then the heap: the 5M-key state (``--heap-keys``) is overwritten again in a driver of its own
whose JVM heap is 512 MB (``local[2]``: the tasks run in it). Holding the keys in a Java
collection, as a hash set of ``UnsafeRow`` copies, takes about 112 bytes per key (a map node,
the row object, its byte array, a table slot): 560 MB for 5M keys, more than that heap. The
overwrite completes because it keeps no per-key collection (RocksDB keeps its data off-heap; an
HDFS-backed image keeps none of its entries, only 8 bytes of hash per key, at most 32 MB per
task). The same for a ``MERGE`` that changes every 1000th key (a copy-on-write rewrite: every
row is read, joined and handed to the write, which finds the keys it was not given by sorting
the stored keys with Spark's external sorter, not with a set of the given ones). The rows are
then counted in another driver with a normal heap (reading HDFS-backed state loads whole
partitions through Spark's provider), with the MERGE's changed counts.

Prints one line per measurement, then, last, one line per ratio: the growth from the
second-largest to the largest size (linear growth is the ratio of the sizes), the growth of a
one-key lookup and of a 10-key upsert from 100k to 5M keys (goals: <= 3 and <= 2), and the heap
checks.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from common import (
    PROVIDERS,
    add_session_options,
    bench_session,
    build_keyed_state,
    median_seconds,
)
from pyspark.sql import SparkSession

from spark_savepoint import attach

TABLE = "bench.agg_0.default"
HEAP = "512m"
HEAP_KEYS = 5_000_000
"""The size the heap checks run on (a size measured, or built before)."""
BYTES_PER_KEY_IN_A_JAVA_SET = 112
FLAT_GOALS = {"one-key lookup": 3, "10-key upsert": 2}
"""What should cost nearly the same whatever the state's size: the most the largest size may
take over the smallest."""


def best(action: Callable[[], object], repeat: int) -> float:
    action()  # warm
    return min(median_seconds(action, 1) for _ in range(repeat))


def fresh_copy(base: Path, scratch: Path) -> Path:
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(base, scratch)
    return scratch


def overwrite(keys: int) -> str:
    return f"INSERT OVERWRITE {TABLE} SELECT id, 2L, id % 97 + 1 FROM range({keys})"


MERGE_EVERY = 1000


def merge(keys: int) -> str:
    return (
        f"MERGE INTO {TABLE} AS t USING (SELECT id AS key FROM range(0, {keys}, {MERGE_EVERY}))"
        " AS s ON t.key = s.key WHEN MATCHED THEN UPDATE SET cnt = t.cnt + 100"
    )


HEAP_STATEMENTS = {"INSERT OVERWRITE": overwrite, "MERGE": merge}


def measure(spark: SparkSession, root: Path, provider: str, keys: int, repeat: int) -> dict:
    print(f"{provider} {keys} keys ...", flush=True)
    base = build_keyed_state(spark, root, provider, keys)
    scratch = root / f"scaling-{provider}-{keys}"
    attach(spark, str(base), "bench")
    probe = itertools.count(4242, 7919)
    times = {
        "full read": best(
            lambda: spark.table(TABLE).write.format("noop").mode("overwrite").save(), repeat
        ),
        "one-key lookup": best(
            lambda: spark.sql(f"SELECT * FROM {TABLE} WHERE key = {next(probe) % keys}").collect(),
            repeat,
        ),
    }

    def write(statement: str) -> float:
        attach(spark, str(fresh_copy(base, scratch)), "bench")
        return median_seconds(lambda: spark.sql(statement), 1)

    upsert = f"INSERT INTO {TABLE} SELECT id, 7L, 7L FROM range({keys - 5}, {keys + 5})"
    for name, statement in (("INSERT OVERWRITE", overwrite(keys)), ("10-key upsert", upsert)):
        write(statement)  # warm
        times[name] = min(write(statement) for _ in range(repeat))
    shutil.rmtree(scratch, ignore_errors=True)
    return times


def child_session(heap: str):
    from spark_savepoint import session

    spark = session(
        master="local[2]",
        **{
            "spark.driver.memory": heap,
            "spark.sql.shuffle.partitions": "4",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def heap_probe(checkpoint: str, keys: int, statement: str) -> None:
    """The child: runs ``statement`` (a name of ``HEAP_STATEMENTS``) over ``keys`` keys of
    ``checkpoint`` in a driver with a small heap."""
    spark = child_session(HEAP)
    attach(spark, checkpoint, "bench")
    seconds = median_seconds(lambda: spark.sql(HEAP_STATEMENTS[statement](keys)), 1)
    heap = spark.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory()  # type: ignore[union-attr]
    print(f"ok {seconds:.2f} {heap}", flush=True)
    spark.stop()


def count_rows(checkpoint: str) -> None:
    """The second child: the rows of the changed state, and how many have the count a MERGE
    gives, read with a normal heap (reading HDFS-backed state loads whole partitions through
    Spark's provider, whoever wrote them)."""
    spark = child_session("4g")
    attach(spark, checkpoint, "bench")
    rows = spark.table(TABLE).count()
    merged = spark.table(TABLE).where("cnt > 100").count()
    print(f"rows {rows} {merged}", flush=True)
    spark.stop()


def run_child(*args: str) -> tuple[str, str]:
    """Runs this script with ``args``; its last line of output (or "") and its stderr."""
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    child = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, env=env, timeout=1800
    )
    last = child.stdout.strip().splitlines()[-1] if child.stdout.strip() else ""
    return (last if child.returncode == 0 else ""), child.stderr


def heap_check(root: Path, provider: str, keys: int, statement: str) -> tuple[bool, str]:
    base = root / f"agg-{provider}-{keys}" / "checkpoint"
    scratch = fresh_copy(base, root / f"heap-{provider}-{keys}")
    try:
        last, stderr = run_child("--heap-probe", str(scratch), str(keys), statement)
        if not last.startswith("ok "):
            oom = "OutOfMemoryError" in stderr
            return False, "out of heap (java.lang.OutOfMemoryError)" if oom else (
                stderr.strip().splitlines() or ["no output"]
            )[-1]
        _, seconds, heap = last.split()
        counted, _ = run_child("--count", str(scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows, merged = counted.split()[1:] if counted.startswith("rows ") else ("no", "no")
    merges = len(range(0, keys, MERGE_EVERY)) if statement == "MERGE" else 0
    detail = f"{int(heap) / 2**20:.0f} MB max heap, {seconds} s, {rows} rows read back" + (
        f", {merged} merged" if merges else ""
    )
    return rows == str(keys) and merged == str(merges), detail


def plot(results: dict, sizes: list[int], path: Path, seconds: str = "best of 3") -> None:
    """Seconds against keys, log-log, one line per measurement and provider; ``seconds`` says
    what a point is (e.g. best of how many runs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    names = list(next(iter(results.values()))[sizes[0]])
    for provider, by_size in results.items():
        for i, name in enumerate(names):
            ax.plot(
                sizes, [by_size[k][name] for k in sizes], "-" if provider == "rocksdb" else "--",
                marker="o", color=f"C{i}", label=f"{name} ({provider})",
            )  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("keys in the state")
    ax.set_ylabel(f"seconds ({seconds})")
    ax.set_title("cost against state size (local[2], 4 partitions; dashed: HDFS-backed)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", default="100000,1000000,5000000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=str(Path(__file__).parent / "out"))
    parser.add_argument("--plot", default="")
    add_session_options(parser)
    parser.add_argument(
        "--heap-keys", type=int, default=HEAP_KEYS, help="the size the heap checks run on"
    )
    parser.add_argument("--heap-probe", nargs=3, metavar=("CHECKPOINT", "KEYS", "STATEMENT"))
    parser.add_argument("--heap-only", action="store_true", help="only the heap checks")
    parser.add_argument("--count", metavar="CHECKPOINT")
    args = parser.parse_args()
    if args.heap_probe:
        heap_probe(args.heap_probe[0], int(args.heap_probe[1]), args.heap_probe[2])
        return
    if args.count:
        count_rows(args.count)
        return

    sizes = [int(k) for k in args.keys.split(",")]
    root = Path(args.dir)
    if args.heap_only:
        heap = heap_checks(root, args.heap_keys)
        print_heap_ratios(heap, args.heap_keys)
        return
    spark = bench_session(args.master, args.driver_memory)
    for p in PROVIDERS:  # warm-up, not kept: the first measured size would pay the JIT's start
        measure(spark, root, p, sizes[0], 1)
    results = {p: {k: measure(spark, root, p, k, args.repeat) for k in sizes} for p in PROVIDERS}
    spark.stop()
    (root / "scaling.json").write_text(json.dumps(results, indent=1))
    for provider, by_size in results.items():
        for keys, times in by_size.items():
            line = ", ".join(f"{name} {s:.3f} s" for name, s in times.items())
            print(f"{provider:8s} {keys:>9d} keys: {line}")
    if args.plot:
        plot(results, sizes, Path(args.plot), f"best of {args.repeat}")
        print(f"plot: {args.plot}")
    largest = sizes[-1]
    heap = heap_checks(root, args.heap_keys)

    middle = sizes[-2] if len(sizes) > 1 else sizes[-1]
    growth = largest / middle
    for provider, by_size in results.items():
        for name in by_size[largest]:
            ratio = by_size[largest][name] / by_size[middle][name]
            print(
                f"ratio time {largest}/{middle} keys, {name}, {provider}: {ratio:.2f}"
                f" (linear: {growth:.1f})"
            )
    smallest, goal_size = sizes[0], HEAP_KEYS if HEAP_KEYS in sizes else largest
    for provider, by_size in results.items() if smallest < goal_size else ():
        for name, goal in FLAT_GOALS.items():
            ratio = by_size[goal_size][name] / by_size[smallest][name]
            print(
                f"ratio time {goal_size}/{smallest} keys, {name}, {provider}: {ratio:.2f}"
                f" (goal: <= {goal})"
            )
    print_heap_ratios(heap, args.heap_keys)


def heap_checks(root: Path, keys: int) -> dict[tuple[str, str], tuple[bool, str]]:
    """Each statement of ``HEAP_STATEMENTS`` on each provider's ``keys``-key state in a small
    heap (built beforehand); prints a line for each."""
    heap = {
        (p, statement): heap_check(root, p, keys, statement)
        for statement in HEAP_STATEMENTS
        for p in PROVIDERS
    }
    for (provider, statement), (_, detail) in heap.items():
        print(f"{provider:8s} {keys}-key {statement} in a {HEAP} heap: {detail}")
    return heap


def print_heap_ratios(heap: dict[tuple[str, str], tuple[bool, str]], keys: int) -> None:
    java_set = keys * BYTES_PER_KEY_IN_A_JAVA_SET / 2**20
    for (provider, statement), (ok, _) in heap.items():
        verdict = "completed" if ok else "did not complete"
        print(
            f"ratio heap / the keys as a Java set, {keys}-key {statement}, {provider}:"
            f" {512 / java_set:.2f}, {verdict} (goal: completes at < 1)"
        )


if __name__ == "__main__":
    main()
