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
 * </ul>
 *
 * <p>Where Spark only moved classes to other packages (4.1 split {@code
 * org.apache.spark.sql.execution.streaming} by role), a version's folder lists the moves in
 * {@code relocations.txt} and the sources are compiled for it with those names; where a
 * constructor only gained parameters with default values, shared code calls {@link
 * dev.sparksavepoint.adapters.ScalaDefaults} (in {@code src/}, like this file).
 */
package dev.sparksavepoint.adapters;
