/**
 * What SQL sessions install by class name: the table functions and the key-widening analyzer
 * rule ({@link dev.sparksavepoint.sql.SavepointExtensions},
 * {@link dev.sparksavepoint.sql.WidenKeys}), the read-only mode of servers
 * ({@link dev.sparksavepoint.sql.ReadOnlyGuard}) and the query listener that records a query's
 * value column names in its checkpoint ({@link dev.sparksavepoint.sql.ValueNamesListener}). The
 * top layer under the Python facade ({@code dev.sparksavepoint.PythonEntry}): built on
 * {@code catalog}, {@code write} and {@code upgrade}.
 */
package dev.sparksavepoint.sql;
