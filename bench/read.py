"""Catalog read vs. Spark's raw ``statestore`` read of the same 1M-key state, both providers.

    python bench/read.py [--keys 1000000] [--repeat 3] [--dir bench/out]

Both sides materialise every row (``noop`` sink); runs alternate so both see the same machine;
medians of ``--repeat`` runs.
The raw reader is timed twice: as is (nested key/value structs, which a noop sink never
decodes) and selecting ``key.*, value.*, partition_id`` (the same flat columns the catalog
returns). Prints one line per provider and the ratios (goal: <= 1.05) last.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from common import PROVIDERS, bench_session, build_keyed_state, median_seconds

from spark_savepoint import attach


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--dir", default=str(Path(__file__).parent / "out"))
    args = parser.parse_args()

    spark = bench_session()
    ratios = {}
    for provider in PROVIDERS:
        checkpoint = build_keyed_state(spark, Path(args.dir), provider, args.keys)
        attach(spark, str(checkpoint), "bench")

        def raw(ckpt: str = str(checkpoint)) -> None:
            spark.read.format("statestore").load(ckpt).write.format("noop").mode("overwrite").save()

        def raw_flat(ckpt: str = str(checkpoint)) -> None:
            spark.read.format("statestore").load(ckpt).select(
                "key.*", "value.*", "partition_id"
            ).write.format("noop").mode("overwrite").save()

        def ours() -> None:
            spark.table("bench.agg_0.default").write.format("noop").mode("overwrite").save()

        rows = spark.table("bench.agg_0.default").count()
        assert rows == args.keys, f"expected {args.keys} keys, read {rows}"
        raw(), raw_flat(), ours()  # warm-up
        times: dict[str, list[float]] = {"raw": [], "raw_flat": [], "ours": []}
        for _ in range(args.repeat):  # alternate, so every side sees the same machine
            for name, action in (("raw", raw), ("raw_flat", raw_flat), ("ours", ours)):
                times[name].append(median_seconds(action, 1))
        raw_s, flat_s, ours_s = (statistics.median(times[n]) for n in ("raw", "raw_flat", "ours"))
        ratios[provider] = (ours_s / raw_s, ours_s / flat_s)
        print(
            f"{provider:8s} {rows} keys: raw statestore {raw_s:.2f} s, raw with key.*/value.*"
            f" selected {flat_s:.2f} s, catalog {ours_s:.2f} s"
        )
    spark.stop()
    print(
        "ratio catalog/raw (raw rows, nested): "
        + ", ".join(f"{p} {r[0]:.3f}" for p, r in ratios.items())
        + "; catalog/raw selecting the same flat columns: "
        + ", ".join(f"{p} {r[1]:.3f}" for p, r in ratios.items())
        + " (goal <= 1.05)"
    )


if __name__ == "__main__":
    main()
