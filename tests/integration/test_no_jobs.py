"""Listing, DESCRIBE and the metadata table read metadata files only: no Spark job runs."""

from __future__ import annotations

import pytest

from spark_savepoint import attach


@pytest.mark.slow
def test_listing_and_describe_launch_no_job(spark, checkpoints) -> None:
    for (kind, provider), query in checkpoints.items():
        attach(spark, str(query.checkpoint), "nj")
        spark.table("nj.metadata").collect()  # warm any lazily loaded classes
        group = f"no-jobs-{kind}-{provider}"
        spark.sparkContext.setJobGroup(group, "listing must not run jobs")
        try:
            for (uid,) in spark.sql("SHOW NAMESPACES IN nj").collect():
                for table in spark.sql(f"SHOW TABLES IN nj.{uid}").collect():
                    spark.sql(f"DESCRIBE nj.{uid}.{table.tableName}").collect()
            spark.table("nj.metadata").collect()
        finally:
            spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        jobs = spark.sparkContext.statusTracker().getJobIdsForGroup(group)
        assert jobs == [], f"{kind}/{provider}: listing launched Spark jobs {jobs}"
