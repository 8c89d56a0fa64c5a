"""The one JVM piece: locate the spark-savepoint jar, (re)building it with javac when missing.

The jar ships prebuilt next to its sources (``catalog/jvm/src``) and carries the error registry
(``catalog/error-conditions.json``) as a resource. The digest of both is stamped beside it; when
the stamp does not match (sources edited, another pyspark), the jar is rebuilt with
``javac --release 17`` against pyspark's own jars: no Maven, no manual step. The JVM unit
tests (``catalog/jvm/test``, never in the jar) compile the same way: :func:`run_unit_tests`.

>>> jar_path().name
'spark-savepoint.jar'
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from functools import lru_cache
from pathlib import Path

import pyspark

from spark_savepoint.catalog.errors import JarBuildError

JVM_DIR = Path(__file__).parent / "jvm"
SOURCE_DIR = JVM_DIR / "src"
TEST_DIR = JVM_DIR / "test"
UNIT_TEST_RUNNER = "dev.sparksavepoint.testing.UnitTests"
JAR_NAME = "spark-savepoint.jar"
ERROR_CONDITIONS = Path(__file__).parent / "error-conditions.json"
RESOURCES = {"dev/sparksavepoint/errors/error-conditions.json": ERROR_CONDITIONS}
"""Files the jar carries besides its classes: path in the jar -> the file (the JVM's
``errors.ErrorConditions`` reads the error registry from the jar)."""


def pyspark_jars() -> Path:
    """The folder of jars that ships inside the installed pyspark."""
    return Path(pyspark.__file__).parent / "jars"


def _sources(folder: Path = SOURCE_DIR) -> list[Path]:
    return sorted(folder.rglob("*.java"))


def source_digest() -> str:
    """Digest of the Java sources, the jar's resources and the pyspark version they compile
    against."""
    digest = hashlib.sha256(pyspark.__version__.encode())
    for source in _sources():
        digest.update(source.relative_to(SOURCE_DIR).as_posix().encode())
        digest.update(source.read_bytes())
    for name, resource in RESOURCES.items():
        digest.update(name.encode())
        digest.update(resource.read_bytes())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def jar_path() -> Path:
    """The jar to put on Spark's classpath, built first if missing or stale."""
    digest = source_digest()
    for folder in (JVM_DIR, Path.home() / ".cache" / "spark-savepoint" / digest[:16]):
        jar, stamp = folder / JAR_NAME, folder / (JAR_NAME + ".sha256")
        if jar.exists() and stamp.exists() and stamp.read_text().strip() == digest:
            return jar
        if _writable(folder):
            build(jar)
            stamp.write_text(digest + "\n")
            return jar
    raise JarBuildError(f"cannot write the jar to {JVM_DIR} or ~/.cache")


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def _jdk_tool(name: str) -> str | None:
    """``name`` (javac, java) of $JAVA_HOME, else the one on the PATH."""
    home = os.environ.get("JAVA_HOME")
    candidate = Path(home, "bin", name) if home else None
    return str(candidate) if candidate and candidate.exists() else shutil.which(name)


def _javac() -> str:
    javac = _jdk_tool("javac")
    if not javac:
        raise JarBuildError(
            "javac not found: install a JDK 17+ (e.g. apt-get install "
            "openjdk-17-jdk-headless) so the spark-savepoint jar can be built from "
            f"{SOURCE_DIR}"
        )
    return javac


def _compile(sources: list[Path], classpath: str, classes: Path) -> None:
    command = [
        _javac(), "--release", "17", "-nowarn", "-encoding", "UTF-8",
        "-cp", classpath, "-d", str(classes), *map(str, sources),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise JarBuildError(f"javac failed:\n{result.stderr}")


def build(jar: Path) -> Path:
    """Compile the Java sources against pyspark's jars into ``jar`` (atomic replace)."""
    with tempfile.TemporaryDirectory(prefix="spark-savepoint-javac-") as tmp:
        classes = Path(tmp, "classes")
        _compile(_sources(), f"{pyspark_jars()}/*", classes)
        partial = Path(tmp, JAR_NAME)
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n\n")
            for item in sorted(classes.rglob("*.class")):
                archive.write(item, item.relative_to(classes).as_posix())
            for name, resource in RESOURCES.items():
                archive.write(resource, name)
        shutil.move(str(partial), jar.with_suffix(".jar.tmp"))
        os.replace(jar.with_suffix(".jar.tmp"), jar)
    return jar


def build_tests(out_dir: Path) -> Path:
    """Compile the JVM unit tests (``catalog/jvm/test``) against the jar into ``out_dir``."""
    _compile(_sources(TEST_DIR), _test_classpath(), out_dir)
    return out_dir


def _test_classpath(*extra: Path) -> str:
    return os.pathsep.join([*map(str, extra), str(jar_path()), f"{pyspark_jars()}/*"])


def run_unit_tests() -> subprocess.CompletedProcess[str]:
    """Compile and run the JVM unit tests (no Spark session); output and exit code 0 or 1."""
    java = _jdk_tool("java")
    if not java:
        raise JarBuildError("java not found: install a JDK 17+")
    with tempfile.TemporaryDirectory(prefix="spark-savepoint-tests-") as tmp:
        classes = build_tests(Path(tmp, "classes"))
        command = [java, "-cp", _test_classpath(classes), UNIT_TEST_RUNNER, str(classes)]
        return subprocess.run(command, capture_output=True, text=True)
