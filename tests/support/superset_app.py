"""A real Apache Superset for the BI system test: its own cached virtualenv (Superset pins
SQLAlchemy 1.4 and pandas 2.1, so it never shares the project's), the project installed there
without its dependencies (the ``savepoint://`` dialect and engine spec need neither pyspark nor
Java), a fresh SQLite metadata database, an admin, and the web server on a free port.

``python -m tests.support.superset_app`` creates the virtualenv (``.ci/run`` does, before the
tests) and prints its interpreter. Superset's own dependency metadata is loose (6.1.0 misses
``rich`` and ``cachetools`` and takes a Flask-Caching it cannot run with), so the virtualenv is
installed from ``superset-requirements.txt``, a freeze of one that works: Superset 6.1.0 and,
as docs/bi-tools.md tells its users, ``pyhive thrift thrift-sasl pure-sasl``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.compat.venvs import cache_dir, cached_python, mark_complete, new_venv
from tests.support import REPO_ROOT
from tests.support.server_process import free_port

REQUIREMENTS = Path(__file__).with_name("superset-requirements.txt")
ADMIN = ("admin", "admin-0123456789")
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
"""Debian's chromium and chromium-driver (``.ci/run`` installs them)."""


def superset_python() -> Path:
    """The Superset virtualenv's interpreter, created first when missing or out of date."""
    folder = cache_dir() / "superset-6.1.0"
    wanted = REQUIREMENTS.read_text().splitlines()
    return cached_python(folder, wanted, lambda: _create(folder, wanted))


def _create(folder: Path, wanted: list[str]) -> None:
    started = time.monotonic()
    print(f"creating Superset's virtualenv in {folder}", file=sys.stderr)
    python = new_venv(folder)
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "-r", str(REQUIREMENTS)], check=True)
    mark_complete(folder, wanted)
    print(f"virtualenv ready in {time.monotonic() - started:.0f} s", file=sys.stderr)


class Superset:
    """A Superset web server of ``python``'s virtualenv, its home in ``home``; :attr:`api` is a
    ``requests`` session logged in to its REST API as the admin."""

    def __init__(self, python: Path, home: Path) -> None:
        self.python, self.home = python, home
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                        "--disable-pip-version-check", "-e", str(REPO_ROOT)],
                       check=True, capture_output=True)  # fmt: skip
        config = home / "superset_config.py"
        config.write_text(
            f'SECRET_KEY = "test-only-{os.urandom(16).hex()}"\n'
            f'SQLALCHEMY_DATABASE_URI = "sqlite:///{home / "superset.db"}"\n'
            "WTF_CSRF_ENABLED = False\n"
        )
        self.env = {**os.environ, "SUPERSET_CONFIG_PATH": str(config), "FLASK_APP": "superset"}
        self.env.pop("PYTHONPATH", None)
        user, password = ADMIN
        self._superset("db", "upgrade")
        names = ["--firstname", "Ada", "--lastname", "Admin", "--email", "ada@example.com"]
        self._superset("fab", "create-admin", "--username", user, "--password", password, *names)
        self._superset("init")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [str(self._bin()), "run", "-h", "127.0.0.1", "-p", str(self.port), "--with-threads"],
            cwd=home, env=self.env, stdout=(home / "superset.log").open("w"),
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        self._wait_healthy()
        self.api = requests.Session()
        login = {"username": user, "password": password, "provider": "db"}
        token = self.post("/api/v1/security/login", login, expect=200)["access_token"]
        self.api.headers["Authorization"] = f"Bearer {token}"

    def _bin(self) -> Path:
        return self.python.parent / "superset"

    def _superset(self, *args: str) -> None:
        result = subprocess.run([str(self._bin()), *args], cwd=self.home, env=self.env,
                                capture_output=True, text=True, timeout=600)  # fmt: skip
        assert result.returncode == 0, f"superset {args}: {result.stdout[-2000:]}{result.stderr}"

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError((self.home / "superset.log").read_text()[-3000:])
            try:
                if requests.get(f"{self.url}/health", timeout=5).text == "OK":
                    return
            except requests.ConnectionError:
                pass
            time.sleep(1)
        raise AssertionError("Superset did not answer /health in 3 minutes")

    def get(self, path: str, **params: str) -> dict:
        response = self.api.get(self.url + path, params=params, timeout=300)
        assert response.status_code == 200, (path, response.status_code, response.text[:2000])
        return response.json()

    def post(self, path: str, body: dict, expect: int = 201) -> dict:
        response = self.api.post(self.url + path, json=body, timeout=300)
        assert response.status_code == expect, (path, response.status_code, response.text[:2000])
        return response.json()

    def screenshot(self, path: str, picture: Path, wait_for: str) -> str:
        """Log in with the web form, open ``path`` in headless Chromium, wait until an element
        matching the CSS selector ``wait_for`` is there, save the window as ``picture``; the
        page's title."""
        script = REPO_ROOT / "tests" / "support" / "superset_screenshot.py"
        args = [self.url, *ADMIN, path, wait_for, str(picture), str(CHROMIUM), str(CHROMEDRIVER)]
        result = subprocess.run([str(self.python), str(script), *args], env=self.env,
                                capture_output=True, text=True, timeout=300)  # fmt: skip
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout.strip()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(60)


if __name__ == "__main__":
    print(superset_python())
