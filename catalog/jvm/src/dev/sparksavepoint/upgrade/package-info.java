/**
 * Upgrading a query: the stateful operators of a changed query, planned without reading input
 * ({@link dev.sparksavepoint.upgrade.PlannedQuery}), matched with a checkpoint's operators by
 * kind and state schema ({@link dev.sparksavepoint.upgrade.OperatorMatching}), and the report of
 * what an upgrade keeps, changes and drops ({@link dev.sparksavepoint.upgrade.UpgradeReport}).
 * Built on {@code write} (a checkpoint's stores and schemas), {@code checkpoint} and
 * {@code errors}; used by {@code PythonEntry}.
 */
package dev.sparksavepoint.upgrade;
