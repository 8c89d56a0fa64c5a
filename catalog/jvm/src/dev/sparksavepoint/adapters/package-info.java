/**
 * What differs between the Spark versions the tool runs on, one small class per role, and
 * nothing else: the rest of the JVM code is shared by every version. Each adapter has one source
 * per API shape under {@code catalog/jvm/spark/<minor>/}, in the folder of the first Spark minor
 * that shape fits; the jar of a Spark version takes every adapter from the newest folder at or
 * below its version (as Iceberg keeps per-version source trees only where Spark's APIs differ).
 * Depends on Spark and {@code errors} only.
 *
 * <ul>
 *   <li>{@code Stores}: a store opened to write, also from no state (4.1 makes an empty version
 *       itself), and a list family scanned value by value (4.1 lists keys only).
 *   <li>{@code OperatorMetadataFiles}: an operator's metadata files read, and their stores
 *       (4.1's reader takes one argument less, its metadata interface lists no stores).
 *   <li>{@code HdfsStoreMapBase}: the typed methods of an HDFS-backed store's map that only
 *       counts ({@code HDFSBackedStateStoreMap} holds {@code UnsafeRowWrapper} values since 4.2).
 * </ul>
 *
 * <p>Where only a constructor's Scala default arguments differ, shared code calls {@link
 * dev.sparksavepoint.adapters.ScalaDefaults} (in {@code src/}, like this file) instead.
 */
package dev.sparksavepoint.adapters;
