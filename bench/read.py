"""Catalog read vs. Spark's raw ``statestore`` read of the same 1M-key state, both providers.

    python bench/read.py [--keys 1000000] [--repeat 3] [--dir bench/out]

Both sides materialise every row (``noop`` sink); runs alternate so both see the same machine.
Prints one line per provider and the ratios (catalog / raw; goal: <= 1.05) last.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from common import PROVIDERS, bench_session, build_keyed_state, median_seconds

from sql_ext import attach


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=str(Path(__file__).parent / "out"))
    args = parser.parse_args()

    spark = bench_session()
    ratios = {}
    for provider in PROVIDERS:
        checkpoint = build_keyed_state(spark, Path(args.dir), provider, args.keys)
        attach(spark, str(checkpoint), "bench")

        def raw(ckpt: str = str(checkpoint)) -> None:
            spark.read.format("statestore").load(ckpt).write.format("noop").mode(
                "overwrite"
            ).save()

        def ours() -> None:
            spark.table("bench.agg_0.default").write.format("noop").mode("overwrite").save()

        rows = spark.table("bench.agg_0.default").count()
        assert rows == args.keys, f"expected {args.keys} keys, read {rows}"
        raw(), ours()  # warm-up
        raw_s = ours_s = 0.0
        for _ in range(args.repeat):
            raw_s += median_seconds(raw, 1)
            ours_s += median_seconds(ours, 1)
        raw_s, ours_s = raw_s / args.repeat, ours_s / args.repeat
        ratios[provider] = ours_s / raw_s
        print(f"{provider:8s} {rows} keys: raw statestore {raw_s:.2f} s, catalog {ours_s:.2f} s")
    spark.stop()
    print(
        "ratio catalog/raw: "
        + ", ".join(f"{p} {r:.3f}" for p, r in ratios.items())
        + " (goal <= 1.05)"
    )


if __name__ == "__main__":
    main()
