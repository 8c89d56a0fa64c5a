"""The one JVM piece: locate the spark-savepoint jar for the running Spark, (re)building it with
javac when missing or stale.

One jar per Spark minor version the tool runs on (:data:`SPARK_VERSIONS`), shipped prebuilt as
``catalog/jvm/spark-savepoint-<minor>.jar``: the shared sources (``catalog/jvm/src``) plus that
version's adapters (``catalog/jvm/spark/<minor>/``: each adapter from the newest folder at or
below the version), compiled with ``javac --release 17`` against that Spark's own jars. Each jar
carries the error registry (``catalog/error-conditions.json``) as a resource, and the digest of
what it was built from is stamped beside it; when the stamp does not match (sources edited), the
jar of the installed pyspark's version is rebuilt against pyspark's jars: no Maven, no manual
step. The JVM unit tests (``catalog/jvm/test``, never in the jar) compile the same way:
:func:`run_unit_tests`.

>>> jar_path("4.2.1").name
'spark-savepoint-4.2.jar'
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from functools import cache
from pathlib import Path
from typing import NamedTuple

import pyspark

from spark_savepoint.catalog.errors import JarBuildError, SparkVersionUnsupported

JVM_DIR = Path(__file__).parent / "jvm"
SOURCE_DIR = JVM_DIR / "src"
ADAPTER_DIR = JVM_DIR / "spark"
TEST_DIR = JVM_DIR / "test"
UNIT_TEST_RUNNER = "dev.sparksavepoint.testing.UnitTests"
SPARK_VERSIONS = ("3.5", "4.0", "4.1", "4.2", "4.3")
"""The Spark minor versions the tool runs on, oldest first: one jar each."""
ERROR_CONDITIONS = Path(__file__).parent / "error-conditions.json"
RESOURCES = {"dev/sparksavepoint/errors/error-conditions.json": ERROR_CONDITIONS}
"""Files the jar carries besides its classes: path in the jar -> the file (the JVM's
``errors.ErrorConditions`` reads the error registry from the jar)."""


def pyspark_jars() -> Path:
    """The folder of jars that ships inside the installed pyspark."""
    return Path(pyspark.__file__).parent / "jars"


def spark_minor(version: str) -> str:
    """The minor version of a Spark version string.

    >>> spark_minor("4.2.1"), spark_minor("4.3.0.dev1"), spark_minor("4.1")
    ('4.2', '4.3', '4.1')
    """
    return ".".join(version.split(".")[:2])


def supported_minor(version: str) -> str:
    """The minor of ``version`` when the tool runs on it.

    Raises:
        SparkVersionUnsupported: it does not (one line naming the versions it runs on).
    """
    minor = spark_minor(version)
    if minor not in SPARK_VERSIONS:
        raise SparkVersionUnsupported(
            f"spark-savepoint runs on Spark {', '.join(SPARK_VERSIONS[:-1])} and "
            f"{SPARK_VERSIONS[-1]}, not on Spark {version}: run it with pyspark "
            f"{SPARK_VERSIONS[0]}.x to {SPARK_VERSIONS[-1]}.x (it reads checkpoints that older "
            "Spark versions wrote there too)."
        )
    return minor


def jar_name(minor: str) -> str:
    """The file name of the jar for Spark ``minor``."""
    return f"spark-savepoint-{minor}.jar"


def _java_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.java"))


def _version_key(minor: str) -> tuple[int, ...]:
    return tuple(int(part) for part in minor.split("."))


def adapter_sources(minor: str) -> list[Path]:
    """The adapters of Spark ``minor``: for each, the source in the newest folder of
    ``catalog/jvm/spark/`` at or below the version. A folder's stand-ins (the packages its
    ``relocations.txt`` points the shared sources into, e.g. ``adapters.state`` of 3.5) are
    only for the versions those relocations apply to: that one and older."""
    chosen: dict[Path, Path] = {}
    for folder in sorted(ADAPTER_DIR.iterdir(), key=lambda f: _version_key(f.name)):
        if _version_key(folder.name) > _version_key(minor):
            continue
        newer = _version_key(folder.name) < _version_key(minor)
        stand_ins = _stand_in_packages(folder) if newer else set()
        for source in _java_files(folder):
            name = source.relative_to(folder)
            if name.parent.as_posix().replace("/", ".") not in stand_ins:
                chosen[name] = source
    return [chosen[name] for name in sorted(chosen)]


def _stand_in_packages(folder: Path) -> set[str]:
    """The packages of the tool's own classes that ``folder``'s relocations rename names to."""
    return {
        pair.older.rstrip(".") if pair.shared.endswith(".") else pair.older.rsplit(".", 1)[0]
        for pair in _listed(folder)
        if pair.older.startswith("dev.sparksavepoint.")
    }


def sources(minor: str) -> list[Path]:
    """Everything the jar of Spark ``minor`` is compiled from (before :func:`relocations`)."""
    return [*_java_files(SOURCE_DIR), *adapter_sources(minor)]


RELOCATIONS = "relocations.txt"
"""In a version's folder of ``catalog/jvm/spark/``: what Spark moved or renamed after that
version, one ``<name in the shared sources> <name for that version>`` pair a line: a package
prefix (ending in ``.``), or a class (renamed as a whole name only), e.g. to a stand-in of the
tool's own for a class that version lacks. The stand-ins themselves name Spark's real class, so
a class line is not applied to the sources of the package it renames to."""


class Relocation(NamedTuple):
    """One line of a ``relocations.txt``: rename ``shared`` to ``older``."""

    shared: str
    older: str

    def applies_to(self, source: Path) -> bool:
        """Whether ``source`` gets it: every source, but a class line not the sources of the
        package it renames to."""
        if self.shared.endswith("."):
            return True
        package = self.older.rsplit(".", 1)[0].replace(".", "/")
        return not source.parent.as_posix().endswith("/" + package)


def relocations(minor: str) -> list[Relocation]:
    """The names to rename in the sources for Spark ``minor``: those of its own folder and of
    every newer one (a move made after a version was also made after every older one),
    longest first.

    >>> relocations("4.3")
    []
    """
    pairs = [
        pair
        for folder in ADAPTER_DIR.iterdir()
        if _version_key(folder.name) >= _version_key(minor)
        for pair in _listed(folder)
    ]
    return sorted(pairs, key=lambda pair: (-len(pair.shared), pair.shared))


def _listed(folder: Path) -> list[Relocation]:
    """The lines of ``folder``'s ``relocations.txt`` (none when it has none)."""
    listed = folder / RELOCATIONS
    if not listed.is_file():
        return []
    lines = listed.read_text().splitlines()
    return [Relocation(*line.split()) for line in lines if line.strip() and line[0] != "#"]


def _relocated(text: str, pairs: list[Relocation]) -> str:
    """``text`` with each pair's name renamed: a package prefix wherever it starts a name, a
    class only as a whole name (``StateStore`` is not ``StateStoreId``)."""
    for pair in pairs:
        whole = "" if pair.shared.endswith(".") else r"(?![\w$])"
        text = re.sub(re.escape(pair.shared) + whole, pair.older.replace("\\", "\\\\"), text)
    return text


def all_sources() -> list[Path]:
    """Every Java source of the jars (shared and every version's adapters), for checks."""
    return [*_java_files(SOURCE_DIR), *_java_files(ADAPTER_DIR)]


def source_digest(minor: str) -> str:
    """Digest of the Spark minor version, the sources and the resources its jar is built from."""
    digest = hashlib.sha256(minor.encode())
    for source in sources(minor):
        digest.update(source.relative_to(JVM_DIR).as_posix().encode())
        digest.update(source.read_bytes())
    for pair in relocations(minor):
        digest.update(f"{pair.shared} {pair.older}\n".encode())
    for name, resource in RESOURCES.items():
        digest.update(name.encode())
        digest.update(resource.read_bytes())
    return digest.hexdigest()


@cache
def jar_path(spark_version: str | None = None) -> Path:
    """The jar to put on the classpath of Spark ``spark_version`` (default: the installed
    pyspark's), built first if missing or stale.

    Raises:
        SparkVersionUnsupported: the tool does not run on that Spark.
        JarBuildError: the jar is stale and cannot be built here (no JDK, another Spark).
    """
    minor = supported_minor(spark_version or pyspark.__version__)
    digest = source_digest(minor)
    name = jar_name(minor)
    folders = (JVM_DIR, Path.home() / ".cache" / "spark-savepoint" / digest[:16])
    for folder in folders:
        jar, stamp = folder / name, folder / (name + ".sha256")
        if jar.exists() and stamp.exists() and stamp.read_text().strip() == digest:
            return jar
    if minor != spark_minor(pyspark.__version__):
        raise JarBuildError(
            f"the spark-savepoint jar for Spark {minor} is out of date for its sources and is "
            f"built against Spark {minor}'s own jars, which this environment (pyspark "
            f"{pyspark.__version__}) lacks: in a clone of the repository, `python -m "
            "tests.support.spark_jars` builds every version's jar."
        )
    for folder in folders:
        if _writable(folder):
            return build_stamped(folder, minor, pyspark_jars())
    raise JarBuildError(f"cannot write the jar to {JVM_DIR} or ~/.cache")


def build_stamped(folder: Path, minor: str, spark_jars: Path) -> Path:
    """Build the jar of Spark ``minor`` against ``spark_jars`` into ``folder``, stamped with
    its digest; its path."""
    jar = build(folder / jar_name(minor), minor, spark_jars)
    (folder / (jar_name(minor) + ".sha256")).write_text(source_digest(minor) + "\n")
    return jar


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


def build(jar: Path, minor: str, spark_jars: Path) -> Path:
    """Compile the sources of Spark ``minor`` against ``spark_jars`` (that Spark's jars folder)
    into ``jar`` (atomic replace)."""
    with tempfile.TemporaryDirectory(prefix="spark-savepoint-javac-") as tmp:
        classes = Path(tmp, "classes")
        _compile(_relocated_sources(minor, Path(tmp, "src")), f"{spark_jars}/*", classes)
        partial = Path(tmp, jar.name)
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n\n")
            for item in sorted(classes.rglob("*.class")):
                archive.write(item, item.relative_to(classes).as_posix())
            for name, resource in RESOURCES.items():
                archive.write(resource, name)
        staged = jar.with_suffix(f".jar.{os.getpid()}.tmp")  # one per builder: several may race
        shutil.move(str(partial), staged)
        os.replace(staged, jar)
    return jar


def _relocated_sources(minor: str, folder: Path) -> list[Path]:
    """The sources of Spark ``minor``, copied under ``folder`` with its relocations applied
    when it has any (else the sources themselves)."""
    pairs = relocations(minor)
    if not pairs:
        return sources(minor)
    copies = []
    for source in sources(minor):
        copy = folder / source.relative_to(JVM_DIR)
        copy.parent.mkdir(parents=True, exist_ok=True)
        applied = [pair for pair in pairs if pair.applies_to(source)]
        copy.write_text(_relocated(source.read_text(), applied))
        copies.append(copy)
    return copies


def build_tests(out_dir: Path) -> Path:
    """Compile the JVM unit tests (``catalog/jvm/test``) against the jar into ``out_dir``."""
    _compile(_java_files(TEST_DIR), _test_classpath(), out_dir)
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
