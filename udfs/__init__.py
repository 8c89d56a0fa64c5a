"""SQL table functions that compute state entries from history (bootstrap functions).

Register one with ``spark.udtf.register(name, ...)`` and feed its rows to an ``INSERT`` on a
savepoint table, e.g. ``INSERT OVERWRITE savepoint.groupstate_0.default SELECT * FROM
bootstrap_counts(TABLE(history))``.
"""

if __name__ != "spark_savepoint.udfs":  # e.g. ``import udfs`` from a source checkout
    raise ImportError(f"{__name__} is not a package of its own: import spark_savepoint.udfs")


from spark_savepoint.udfs.group_state import BootstrapGroupState, group_state_bootstrap
from spark_savepoint.udfs.transform_with_state import (
    BootstrapHandle,
    bootstrap_transform_with_state,
    transform_with_state_bootstrap,
)

__all__ = [
    "BootstrapGroupState",
    "BootstrapHandle",
    "bootstrap_transform_with_state",
    "group_state_bootstrap",
    "transform_with_state_bootstrap",
]
