/**
 * What differs between the Spark versions the tool runs on, one small class per role, and
 * nothing else: the rest of the JVM code is shared by every version. Each adapter has one source
 * per API shape under {@code catalog/jvm/spark/<minor>/}, in the folder of the first Spark minor
 * that shape fits; the jar of a Spark version takes every adapter from the newest folder at or
 * below its version (as Iceberg keeps per-version source trees only where Spark's APIs differ).
 * Depends on Spark only.
 *
 * <ul>
 *   <li>{@code Stores}: a store opened to write, also from no state (4.0 and 4.1 make an empty
 *       version themselves), and a list family scanned value by value (they list keys only).
 *   <li>{@code ListWrites}: a list family's values appended or replaced (4.0 writes one value a
 *       call).
 *   <li>{@code OperatorMetadataFiles}: an operator's metadata files read, and their stores
 *       (before 4.2 the reader takes one argument less and the interface lists no stores).
 *   <li>{@code HdfsStoreMapBase}: the typed methods of an HDFS-backed store's map that only
 *       counts ({@code HDFSBackedStateStoreMap} holds {@code UnsafeRowWrapper} values since 4.2).
 *   <li>{@code AnalysisExceptionBase}: the tool's errors as AnalysisExceptions with their own
 *       SQLSTATE (4.0's constructors take none).
 *   <li>{@code Relations}: a table's relation rebuilt for row-level commands (time travel in
 *       the relation since 4.1).
 *   <li>{@code ReaderSettings}: whether Spark's state reader must be kept from reporting to a
 *       coordinator outside a query (before 4.3 it reports loaded snapshots to one that only a
 *       query has).
 *   <li>{@code SchemaFiles}: a store's schema file read (3.5's reader gives one key and value
 *       schema, 4.0's column families).
 *   <li>{@code RecordedConf}: the confs the offset log recorded laid over a SQL conf (3.5 takes
 *       a {@code RuntimeConfig}).
 *   <li>{@code Conditions}: the error condition of Spark's errors (3.5's {@code getErrorClass}).
 *   <li>{@code SparkState}: Spark's own provider and store objects, for code that inspects their
 *       class or fields (the 3.5 jar wraps them).
 *   <li>{@code MergePlans}: a MERGE plan rebuilt (schema evolution since 4.0).
 *   <li>{@code FirstBatches}: a query planned as its first batch (3.5's planning writes no state
 *       schema file, so the plan also runs once on no input).
 *   <li>{@code CallStatements}: SQL's CALL (3.5's parser has none: a session with the tool's
 *       extensions refuses it in one line instead of a syntax error).
 * </ul>
 *
 * <p>Spark 3.5 lacks whole APIs the shared code is written against: its folder's sub-packages
 * hold stand-ins, and its {@code relocations.txt} points the shared code at them when compiling
 * its jar. {@code adapters.state} is Spark 4.0's state store API over 3.5's own providers and
 * stores (one column family, no state checkpoint ids; reading through 3.5's providers, as 4.0's
 * {@code statestore} data source reads), with refusing stand-ins for transformWithState and
 * operator metadata classes; {@code adapters.procedures} are 4.0's procedure interfaces (3.5's
 * SQL has no CALL: Python calls the procedures through {@code procedures.DirectCalls});
 * {@code adapters.scala212} converts collections as Scala 2.13's {@code CollectionConverters}
 * does. Stand-ins are only in the jars of their version and older.
 *
 * <p>Where Spark only moved classes to other packages (4.1 split {@code
 * org.apache.spark.sql.execution.streaming} by role; 4.0 moved the classic session to {@code
 * org.apache.spark.sql.classic}), a version's folder lists the moves in {@code relocations.txt}
 * and the sources are compiled for it with those names; where a
 * constructor only gained parameters with default values, shared code calls {@link
 * dev.sparksavepoint.adapters.ScalaDefaults} (in {@code src/}, like this file).
 */
package dev.sparksavepoint.adapters;
