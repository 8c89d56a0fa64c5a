/**
 * Errors a user can act on, in one class ({@link dev.sparksavepoint.errors.Errors}): one line
 * each, starting with a stable {@code SAVEPOINT_*} class. It depends only on {@code conf} (the
 * settings its messages name), and every other package reports through it.
 */
package dev.sparksavepoint.errors;
