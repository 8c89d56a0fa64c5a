/**
 * What SQL sessions install by class name: the table functions and the key-widening analyzer
 * rule ({@link dev.sparksavepoint.sql.SavepointExtensions},
 * {@link dev.sparksavepoint.sql.WidenKeys}) and the read-only mode of servers
 * ({@link dev.sparksavepoint.sql.ReadOnlyGuard}). The top layer under the Python facade
 * ({@code dev.sparksavepoint.PythonEntry}): built on {@code catalog} and {@code write}.
 */
package dev.sparksavepoint.sql;
