"""The tool's ``spark.savepoint.*`` settings, read from the one place that declares them.

The Java class ``dev.sparksavepoint.conf.Settings`` (shipped with the package as source) names
every setting once; this module reads those names from it, so Python never spells one again and
needs no JVM to know them (a Spark Connect client has none).

>>> WRITE_FORCE
'spark.savepoint.write.force'
>>> READ_ONLY
'spark.savepoint.readOnly'
"""

from __future__ import annotations

import re
from pathlib import Path

SOURCE = Path(__file__).parent / "jvm" / "src" / "dev" / "sparksavepoint" / "conf" / "Settings.java"
_DECLARATION = re.compile(r'public static final String (\w+) =\s*"(spark\.savepoint\.[\w.]+)";')


def declared() -> dict[str, str]:
    """Every setting ``Settings.java`` declares: constant name -> setting name."""
    return dict(_DECLARATION.findall(SOURCE.read_text()))


_SETTINGS = declared()

WRITE_DRY_RUN: str = _SETTINGS["WRITE_DRY_RUN"]
"""Session: ``true`` makes every write a dry run that reports and writes nothing."""
WRITE_FORCE: str = _SETTINGS["WRITE_FORCE"]
"""Session: ``true`` writes although the checkpoint's query may look alive."""
WRITE_PARTITIONED_BY: str = _SETTINGS["WRITE_PARTITIONED_BY"]
"""Session: the columns a query started before Spark 3.3 placed its keys by."""
WRITE_TRANSACTION: str = _SETTINGS["WRITE_TRANSACTION"]
"""Session: the id of the edit transaction the session's writes are staged in."""
READ_ONLY: str = _SETTINGS["READ_ONLY"]
"""Application: ``true`` refuses every write and DDL (a server's default)."""
MAX_PARTITIONS: str = _SETTINGS["MAX_PARTITIONS"]
"""Session: the most partitions a restore rehashes state into (10000 by default)."""
CHANGES_FROM_CHANGE_FILES: str = _SETTINGS["CHANGES_FROM_CHANGE_FILES"]
"""Session: ``false`` makes ``savepoint_changes`` diff full reads instead of reading the
batches' change files (``true`` by default; the same rows)."""
COPY_ON_DRIVER_BYTES: str = _SETTINGS["COPY_ON_DRIVER_BYTES"]
"""Session: the most bytes an operator's state folder may hold for a take or restore to copy its
image files on the driver, without a Spark job (``128m`` by default; ``0``: always a job)."""
