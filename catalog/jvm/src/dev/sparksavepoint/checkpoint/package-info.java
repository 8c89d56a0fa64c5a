/**
 * The on-disk model of a streaming checkpoint, read with Hadoop's FileSystem API and Spark's own
 * metadata readers (never Spark's binary formats): the folder and its batch logs
 * ({@link dev.sparksavepoint.checkpoint.Checkpoint},
 * {@link dev.sparksavepoint.checkpoint.CheckpointLog}, which also holds the batch arithmetic),
 * stateful operators and their uids, state references, stores, transformWithState variables and
 * column families, store file names, the names a query gave its aggregations' value columns.
 * Depends only on {@code errors}; every layer above reads the checkpoint through it. What cannot
 * be parsed is an error, never a permissive default.
 */
package dev.sparksavepoint.checkpoint;
