"""The Java sources' format: google-java-format, default Google style (2-space indent, 100
columns), on every ``.java`` file under ``catalog/jvm/src``, ``catalog/jvm/spark`` (the versions'
adapters) and ``catalog/jvm/test``.

    python -m tests.support.java_format           # format them in place, list what changed
    python -m tests.support.java_format --check   # list the unformatted ones, exit 1 if any

A development tool only: its all-deps jar is fetched once by Maven into the cache of
``tests.support.jars`` (the pom makes Maven check Central's published SHA-1), and its SHA-256 is
checked against Central's published one, pinned below, on every run. A failed fetch, check or
formatter run prints one line and exits 2.

Javadoc is left as written (``--skip-javadoc-formatting``): the formatter would reflow every
comment and break ``{@code ...}`` across lines. Long string literals are reflowed, so code lines
stay within 100 columns; imports are sorted and unused ones removed.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from pathlib import Path

from tests.support import REPO_ROOT
from tests.support.jars import SetupError, fetched, java

# 1.29.0 and later use javac classes of JDK 21+ (JCTree$JCAnyPattern) and fail on JDK 17.
VERSION = "1.28.0"
# https://repo1.maven.org/maven2/com/google/googlejavaformat/google-java-format/1.28.0/
#   google-java-format-1.28.0-all-deps.jar.sha256
SHA256 = "32342e7c1b4600f80df3471da46aee8012d3e1445d5ea1be1fb71289b07cc735"
OPTIONS = ["--skip-javadoc-formatting"]
# the formatter parses with javac's internals; JDK 16+ must export them (its README)
EXPORTS = [
    f"--add-exports=jdk.compiler/com.sun.tools.javac.{package}=ALL-UNNAMED"
    for package in ("api", "code", "file", "parser", "tree", "util")
]
POM = Path(__file__).with_name("java_format") / "pom.xml"
FOLDERS = [REPO_ROOT / "catalog" / "jvm" / name for name in ("src", "spark", "test")]


def formatter_jar() -> Path:
    """google-java-format's all-deps jar, fetched on first use, its SHA-256 checked."""
    name = f"google-java-format-{VERSION}-all-deps.jar"
    jars = fetched(POM, name.removesuffix(".jar"), {"gjf.version": VERSION})
    jar = next((j for j in jars if j.name == name), None)
    if jar is None:
        raise SetupError(f"Maven fetched no {name}")
    digest = hashlib.sha256(jar.read_bytes()).hexdigest()
    if digest != SHA256:
        raise SetupError(f"{jar} has SHA-256 {digest}, not Maven Central's {SHA256}")
    return jar


def sources() -> list[Path]:
    """Every Java source and test file of the project."""
    return sorted(path for folder in FOLDERS for path in folder.rglob("*.java"))


def unformatted(files: list[Path]) -> list[Path]:
    """The ``files`` the formatter would change."""
    return [Path(line) for line in _run("--dry-run", files).splitlines() if line.strip()]


def format_files(files: list[Path]) -> None:
    """Rewrites ``files`` in the project's format."""
    if files:
        _run("--replace", files)


def _run(mode: str, files: list[Path]) -> str:
    command = [java(), *EXPORTS, "-jar", str(formatter_jar()), *OPTIONS, mode, *map(str, files)]
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        first = lines[0] if lines else f"exit code {done.returncode}"
        raise SetupError(f"google-java-format {VERSION} failed: {first}")
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.java_format",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--check", action="store_true", help="list unformatted files, exit 1")
    args = parser.parse_args(argv)
    try:
        changed = unformatted(sources())
        if not args.check:
            format_files(changed)
    except SetupError as e:
        print(f"java_format: {e}", file=sys.stderr)
        return 2
    for path in changed:
        print(path.relative_to(REPO_ROOT))
    if args.check and changed:
        print(
            f"java_format: {len(changed)} Java file(s) unformatted;"
            " run .venv/bin/python -m tests.support.java_format",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
