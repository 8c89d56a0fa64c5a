/**
 * Spark 4.0's state store API as the shared sources use it, on Spark 3.5's: the jar of 3.5 is
 * compiled with these classes in place of Spark's ({@code relocations.txt}), so the shared code
 * stays one.
 *
 * <ul>
 *   <li>{@code StateStoreProvider}, {@code ReadStateStore}, {@code StateStore} and {@code
 *       StateStoreIterator} wrap Spark 3.5's own provider and stores: every read and write still
 *       goes through them. 3.5 stores have one column family ({@code default}) and no state
 *       checkpoint ids (checkpoint format v1 only); anything else is refused with {@code
 *       SAVEPOINT_SPARK_VERSION}.
 *   <li>The others stand in for classes of transformWithState and operator metadata, which 3.5
 *       does not have: they only keep the shared code compiling, and refuse when used.
 * </ul>
 */
package dev.sparksavepoint.adapters.state;
