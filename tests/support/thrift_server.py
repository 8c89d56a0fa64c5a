"""A real ``spark-savepoint thriftserver`` in a subprocess, for the JDBC and BI client tests."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from tests.support.server_process import ServerProcess

USER, PASSWORD = "analyst", "pa:ss-0123456789"
"""The login of the system tests' shared server (its --password-file holds USER:PASSWORD)."""


class Server(ServerProcess):
    """``spark-savepoint thriftserver <args>`` on one local core, and its JDBC URL."""

    password_file: Path | None = None

    def __init__(self, args: list[str], log: Path) -> None:
        small = ["--master", "local[1]", "--conf", "spark.sql.shuffle.partitions=4"]
        super().__init__(["thriftserver", *args, *small], log)
        self.url = self.line("JDBC URL: ")

    def sqlalchemy_url(self, host: str = "127.0.0.1") -> str:
        """The ``savepoint://`` URL that logs in with USER and PASSWORD."""
        login = f"{quote(USER, safe='')}:{quote(PASSWORD, safe='')}@"
        return f"savepoint://{login}{host}:{self.port}/default?auth=CUSTOM"


def login(server: Server, **options: str):
    """A PyHive connection that logs in with the shared server's password."""
    from pyhive import hive

    return hive.connect(host="127.0.0.1", port=server.port, username=USER, password=PASSWORD,
                        auth="CUSTOM", **options)  # fmt: skip
