/**
 * Writes rows into one state table as one new batch: validates and plans the edit
 * ({@link dev.sparksavepoint.write.WritePlan}, after settling what dead writers left,
 * {@link dev.sparksavepoint.write.WriteRecovery}), checks and encodes incoming rows
 * ({@link dev.sparksavepoint.write.IncomingColumns}, {@link dev.sparksavepoint.write.RowEncoder}),
 * applies them per state partition with one writer and a strategy per state kind
 * ({@link dev.sparksavepoint.write.PartitionWriter}, {@code StateEdits}) through the
 * {@code store} layer (or as full images, {@code image}), commits the partitions it did not
 * touch, and hands the batch to the {@code commit} layer. Statements of an edit transaction
 * stage their changes ({@link dev.sparksavepoint.write.EditTransaction}). Depends on
 * {@code image}, {@code store}, {@code commit}, {@code read}, {@code checkpoint} and
 * {@code errors}; knows nothing of catalogs or SQL.
 */
package dev.sparksavepoint.write;
