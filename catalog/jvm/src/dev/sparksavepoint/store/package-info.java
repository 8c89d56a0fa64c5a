/**
 * One partition of one state store, as a write or a carried-over batch sees it: opened through
 * Spark's own provider ({@link dev.sparksavepoint.store.StatePartition}), its changes sent to
 * one sink chosen when it opens ({@link dev.sparksavepoint.store.PartitionSink}: Spark's store,
 * a dry run's recorder {@link dev.sparksavepoint.store.DryRun}, or a transaction statement's
 * stager {@link dev.sparksavepoint.store.StagedEdits}); the stores of a new batch
 * ({@link dev.sparksavepoint.store.StoreBatch}) and the partitions committed again unchanged
 * ({@link dev.sparksavepoint.store.CarryOver}, {@link dev.sparksavepoint.store.EmptyBatch}).
 * Knows no rows' meaning: callers hand it encoded keys and values. Depends on {@code commit},
 * {@code read}, {@code checkpoint} and {@code errors}.
 */
package dev.sparksavepoint.store;
