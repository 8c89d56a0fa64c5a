/**
 * The catalog's stored procedures, one class each with typed result rows, registered in one
 * table ({@link dev.sparksavepoint.procedures.Procedures}): the one door to the whole-checkpoint
 * actions for SQL, Spark Connect, Thrift and the Python verbs. Depends on {@code actions},
 * {@code commit} (the read-only mode) and Spark's procedure API.
 */
package dev.sparksavepoint.procedures;
