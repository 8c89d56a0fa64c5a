/**
 * Names to tables: the Spark catalog over one checkpoint
 * ({@link dev.sparksavepoint.catalog.SavepointCatalog}, {@code <catalog>.<uid>.<state>}, with
 * {@code VERSION AS OF}), its state tables ({@link dev.sparksavepoint.catalog.FlatStateTable})
 * and {@code <catalog>.metadata} ({@link dev.sparksavepoint.catalog.MetadataTable}). Opens the
 * checkpoint, then delegates reading to {@code read}, writing to {@code write}, and creating a
 * missing savepoint ({@code like}) to {@code actions}.
 */
package dev.sparksavepoint.catalog;
