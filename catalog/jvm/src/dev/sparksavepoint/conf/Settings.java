package dev.sparksavepoint.conf;

/**
 * Every {@code spark.savepoint.*} setting, declared once. The Java code reads them from here;
 * Python reads their names from this file's source ({@code spark_savepoint.catalog.settings}),
 * so a name is never spelled twice. Session settings are set with {@code SET} or
 * {@code spark.conf.set}; application settings with {@code --conf} at start.
 */
public final class Settings {
  private Settings() {}

  /** Session: {@code true} makes every write a dry run that reports and writes nothing. */
  public static final String WRITE_DRY_RUN = "spark.savepoint.write.dryRun";

  /** Session: {@code true} writes although the checkpoint's query may look alive. */
  public static final String WRITE_FORCE = "spark.savepoint.write.force";

  /** Session: the columns a non-strict query placed its keys by (as the option partitioned_by). */
  public static final String WRITE_PARTITIONED_BY = "spark.savepoint.write.partitionedBy";

  /** Session: the id of the edit transaction the session's writes are staged in. */
  public static final String WRITE_TRANSACTION = "spark.savepoint.write.transaction";

  /**
   * The catalog's class, for {@code spark.sql.catalog.<name>}: what the actions that run SQL on a
   * checkpoint register ({@code actions.CheckpointSql}), named here so they need no import of it.
   */
  public static final String CATALOG_CLASS = "dev.sparksavepoint.catalog.SavepointCatalog";

  /**
   * Session: {@code false} makes {@code savepoint_changes} diff two full reads per batch instead
   * of reading the batches' change files (default {@code true}; the rows are the same).
   */
  public static final String CHANGES_FROM_CHANGE_FILES = "spark.savepoint.changes.fromChangeFiles";

  /** Application: {@code true} refuses every write and DDL (a server's default). */
  public static final String READ_ONLY = "spark.savepoint.readOnly";

  /**
   * The most partitions a restore rehashes state into (default {@link #MAX_PARTITIONS_DEFAULT}):
   * each is a state store of its own, with files for every batch.
   */
  public static final String MAX_PARTITIONS = "spark.savepoint.maxPartitions";

  public static final int MAX_PARTITIONS_DEFAULT = 10_000;

  /**
   * Session: the most bytes an operator's state folder may hold for a take, restore or upgrade
   * to copy its stores' image files on the driver instead of in a Spark job (default
   * {@link #COPY_ON_DRIVER_BYTES_DEFAULT}; {@code 0}: always a job). A size, such as {@code 64m}.
   */
  public static final String COPY_ON_DRIVER_BYTES = "spark.savepoint.copy.onDriverBytes";

  public static final String COPY_ON_DRIVER_BYTES_DEFAULT = "128m";

  /** Internal (Hadoop conf of a read): the moved schema folder's recorded location. */
  public static final String RELOCATED_SCHEMA_FROM = "spark.savepoint.relocatedSchema.from";

  /** Internal (Hadoop conf of a read): the moved schema folder's location now. */
  public static final String RELOCATED_SCHEMA_TO = "spark.savepoint.relocatedSchema.to";

  /** Internal (Hadoop conf of a read): the file system class the relocation wraps. */
  public static final String RELOCATED_SCHEMA_DELEGATE = "spark.savepoint.relocatedSchema.delegate";
}
