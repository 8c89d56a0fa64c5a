/**
 * Errors a user can act on, in one class ({@link dev.sparksavepoint.errors.Errors}): one line
 * each, starting with a stable {@code SAVEPOINT_*} class. The bottom layer: it depends on no
 * other package of ours, and every other package reports through it.
 */
package dev.sparksavepoint.errors;
