/**
 * The checkpoint doctor: what is wrong with a checkpoint, found offline from its files
 * ({@link dev.sparksavepoint.doctor.Doctor#verify}). Each finding has a stable class
 * ({@link dev.sparksavepoint.doctor.Check}), a severity, the batch, operator, partition and file
 * concerned, and the fix. It reads the logs and listings, every file that has a checksum once
 * (a Spark job), and the metadata of the RocksDB zips the next batch loads; it changes no file.
 * {@link dev.sparksavepoint.doctor.Repair} applies a {@link
 * dev.sparksavepoint.doctor.RepairPlan} as one undoable change; lost schema files are written
 * as a query's plan writes them ({@code upgrade.PlannedQuery}). Depends on {@code checkpoint},
 * {@code commit}, {@code upgrade} and {@code errors}.
 */
package dev.sparksavepoint.doctor;
