/**
 * Reads state through Spark's {@code statestore} data source only
 * ({@link dev.sparksavepoint.read.StateSource}), presenting its nested key/value rows as flat
 * columns ({@link dev.sparksavepoint.read.FlatSchema}, flattened in the read tasks by
 * {@link dev.sparksavepoint.read.FlatScan}). Depends on {@code checkpoint} and {@code errors}.
 */
package dev.sparksavepoint.read;
