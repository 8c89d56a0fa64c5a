"""Who may use a server: the addresses that count as loopback, the secret files of
``spark-savepoint connect`` (its token) and ``thriftserver`` (its password), and the refusal to
listen beyond loopback without a credential.

A secret file must be readable by its owner only (mode 0600 or stricter); the servers refuse
one that others can read, in one line, before Spark starts.

>>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
(True, True, True, False)
>>> parse_password("alice:s3cret\\n"), parse_password("s3cret")
(('alice', 's3cret'), (None, 's3cret'))
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import stat
import sys
from pathlib import Path

from spark_savepoint.catalog.errors import CredentialFileError, InsecureBind


def secrets_dir() -> Path:
    """Where ``connect`` writes the token it generates: ``~/.spark-savepoint`` (mode 0700)."""
    return Path.home() / ".spark-savepoint"


def is_loopback(bind: str) -> bool:
    """Whether a server bound to ``bind`` is reachable from this machine only."""
    if bind == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind).is_loopback
    except ValueError:  # a host name: what it resolves to may change, so it is not loopback
        return False


def check_bind(bind: str, *, credential: bool, insecure: bool, server: str, how: str) -> None:
    """Refuse, before Spark starts, to listen beyond loopback with no credential (``how`` says
    how to give one), unless ``insecure``: then warn on stderr."""
    if credential or is_loopback(bind):
        return
    if not insecure:
        raise InsecureBind(
            f"{server} would accept anyone who reaches {bind}: it has no credential. {how}; or "
            "bind to loopback (--bind 127.0.0.1) and tunnel (ssh -L); --insecure allows it for a "
            "throwaway sandbox."
        )
    print(f"spark-savepoint: WARNING: {server} on {bind} lets in anyone who reaches it "
          "(--insecure): use it for a throwaway sandbox only.", file=sys.stderr)  # fmt: skip


def check_owner_only(path: Path, option: str) -> None:
    """Refuse a secret file that is missing, not a file, or readable by others than its owner."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise CredentialFileError(f"{option} {path}: {error.strerror}.") from None
    if not stat.S_ISREG(mode):
        raise CredentialFileError(f"{option} {path}: not a file.")
    if mode & 0o077:
        raise CredentialFileError(
            f"{option} {path} can be read by other users (mode {stat.S_IMODE(mode):04o}): only "
            f"its owner may: chmod 600 {path}."
        )


def read_secret(path: Path, option: str) -> str:
    """The first non-blank line of an owner-only secret file."""
    check_owner_only(path, option)
    line = next((line.strip() for line in path.read_text().splitlines() if line.strip()), "")
    if not line:
        raise CredentialFileError(f"{option} {path} is empty: write the secret on its first line.")
    return line


def parse_password(text: str) -> tuple[str | None, str]:
    """``user:password`` -> (user, password); a bare ``password`` -> (None, password): any user
    name (as :class:`dev.sparksavepoint.server.PasswordFileAuthenticator` reads the file)."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    user, sep, password = line.partition(":")
    return (user, password) if sep else (None, line)


def new_token() -> str:
    """A fresh random token (256 bits, URL-safe: it goes into ``sc://...;token=``)."""
    return secrets.token_urlsafe(32)


def write_secret(path: Path, secret: str) -> Path:
    """Write ``secret`` to ``path``, readable by its owner only (its folder created 0700)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # an existing file keeps its mode through os.open
    with os.fdopen(descriptor, "w") as file:
        file.write(secret + "\n")
    return path
