"""moto's S3 server with one request at a time: ``python -m tests.support.moto_serial HOST PORT``.

moto's own server (``python -m moto.server``) answers requests on parallel threads, and its
check of a conditional PUT (``If-None-Match: *``) is not atomic with the write: two racing
creates of one key could both succeed, which S3 itself never lets happen. The tests race such
creates on purpose (tests/system/test_remote_storage.py), so every request here runs under one
lock, as S3 orders them. Connections are still served on threads (the S3A client keeps several
open).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from moto.server import MotoRequestHandler
from werkzeug.serving import run_simple


def serialized(app: Callable[..., Iterable[bytes]]) -> Callable[..., list[bytes]]:
    """``app`` answering one request at a time (its whole response made under a lock)."""
    lock = threading.Lock()

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        with lock:
            return list(app(environ, start_response))

    return serve


def main(host: str, port: int) -> None:
    os.environ.setdefault("MOTO_PORT", str(port))
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(host, port, serialized(app), threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
