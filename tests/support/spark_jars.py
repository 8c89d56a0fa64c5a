"""Build the jar of every Spark version the tool runs on
(``catalog/jvm/spark-savepoint-<minor>.jar``) against that Spark's own jars, taken from the
compatibility matrix's virtualenvs (:mod:`tests.compat.venvs`, created when missing). Run it
after editing the Java sources:

    python -m tests.support.spark_jars          # every version; prints each jar
    python -m tests.support.spark_jars 4.2      # one

The installed pyspark's own jar is also rebuilt on its own when stale (``jar.jar_path``);
``tests/unit/test_spark_versions.py`` fails while any committed jar is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

from spark_savepoint.catalog import jar
from tests.compat.venvs import VERSIONS, python_for


def spark_jars_of(minor: str) -> Path:
    """The jars folder of the compatibility virtualenv with pyspark ``minor``."""
    (version,) = [v for v in VERSIONS if jar.spark_minor(v) == minor]
    found = sorted(python_for(version).parent.parent.glob("lib/python*/site-packages/pyspark/jars"))
    if not found:
        raise RuntimeError(f"no pyspark jars in the virtualenv of pyspark {version}")
    return found[0]


def main(argv: list[str]) -> int:
    for minor in argv or jar.SPARK_VERSIONS:
        if jar.source_digest(minor) == _stamp(minor):
            print(f"{jar.JVM_DIR / jar.jar_name(minor)} (up to date)")
            continue
        print(jar.build_stamped(jar.JVM_DIR, minor, spark_jars_of(minor)))
    return 0


def _stamp(minor: str) -> str:
    stamp = jar.JVM_DIR / (jar.jar_name(minor) + ".sha256")
    return stamp.read_text().strip() if stamp.exists() else ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
