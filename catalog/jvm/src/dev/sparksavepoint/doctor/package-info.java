/**
 * The checkpoint doctor: what is wrong with a checkpoint, found offline from its files
 * ({@link dev.sparksavepoint.doctor.Doctor#verify}). Each finding has a stable class
 * ({@link dev.sparksavepoint.doctor.Check}), a severity, the batch, operator, partition and file
 * concerned, and the fix. It reads the logs and listings, every file that has a checksum once
 * (a Spark job), and the metadata of the RocksDB zips the next batch loads; it changes no file.
 * Depends on {@code checkpoint}, {@code commit} and {@code errors}.
 */
package dev.sparksavepoint.doctor;
