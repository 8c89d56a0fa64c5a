/**
 * Hadoop's local file system without a forked process per permission change or rename, for
 * {@code file:} checkpoints where Hadoop's native library is missing.
 */
package dev.sparksavepoint.localfs;
