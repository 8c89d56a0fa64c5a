"""A Spark driver that runs the steps of ``tests.support.store_ops`` on command, for stores
whose connector jars the test session lacks (S3 through ``hadoop-aws``) and for other masters
(a standalone cluster).

    python -m tests.support.store_driver '<JSON object of extra Spark settings>'

(``spark.master`` among them: another master than ``local[2]``, e.g. a standalone cluster.)

Prints ``ready`` once warm; then for every stdin line ``{"step": name, ...arguments}`` runs the
step and prints one line ``@@reply {"result": ...}`` or ``@@reply {"error": "..."}``. Exits when
stdin closes.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from spark_savepoint import session  # noqa: E402
from tests.support.store_ops import REPLY, execute  # noqa: E402


def main() -> None:
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.warehouse.dir": os.path.join(os.getcwd(), "warehouse"),
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={os.getcwd()}",
        **json.loads(sys.argv[1]),
    }
    spark = session(master=settings.pop("spark.master", "local[2]"), **settings)
    spark.sparkContext.setLogLevel("ERROR")
    print("ready", flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        try:
            reply = {"result": execute(spark, command.pop("step"), **command)}
        except Exception as error:
            reply = {"error": f"{type(error).__name__}: {error!s:.4000}"}
        print(REPLY + json.dumps(reply), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
