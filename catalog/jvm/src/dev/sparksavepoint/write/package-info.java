/**
 * Writes state as one new batch: plans the edit
 * ({@link dev.sparksavepoint.write.WritePlan}), checks and encodes incoming rows
 * ({@link dev.sparksavepoint.write.IncomingColumns}, {@link dev.sparksavepoint.write.RowEncoder}),
 * applies them per state partition through Spark's own state store providers with one writer
 * and a strategy per state kind ({@link dev.sparksavepoint.write.PartitionWriter},
 * {@code StateEdits}), commits the partitions it did not touch, and hands the batch to the
 * {@code commit} layer. Depends on {@code commit}, {@code read}, {@code checkpoint} and
 * {@code errors}; knows nothing of catalogs or SQL.
 */
package dev.sparksavepoint.write;
