/**
 * The catalog's stored procedures, one class each with typed result rows, registered in one
 * table ({@link dev.sparksavepoint.procedures.Procedures}): the one door to the whole-checkpoint
 * actions, to what the session's edits did and to edit transactions, for SQL, Spark Connect,
 * Thrift and the Python verbs. Depends on {@code actions}, {@code write} (transactions),
 * {@code commit} (the read-only mode, the session's reports) and Spark's procedure API.
 */
package dev.sparksavepoint.procedures;
