/**
 * Whole-checkpoint operations a user runs by name, one per class: create an empty savepoint
 * shaped like a checkpoint ({@link dev.sparksavepoint.actions.EmptySavepoint}), complete an
 * interrupted edit ({@link dev.sparksavepoint.actions.RecoverEdit}); take, restore and upgrade
 * belong here too. Built on {@code write}, {@code commit} and {@code checkpoint}.
 */
package dev.sparksavepoint.actions;
