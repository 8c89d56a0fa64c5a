"""The JVM side: the catalog's jar (built from ``jvm/``), its errors, and the one module
that talks to the JVM (:mod:`spark_savepoint.catalog.bridge`)."""

if __name__ != "spark_savepoint.catalog":  # e.g. ``import catalog`` from a source checkout
    raise ImportError(f"{__name__} is not a package of its own: import spark_savepoint.catalog")
