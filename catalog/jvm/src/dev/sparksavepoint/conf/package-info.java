/**
 * The tool's own settings ({@link dev.sparksavepoint.conf.Settings}), declared once for Java and
 * Python. Depends on nothing; every other package may use it.
 */
package dev.sparksavepoint.conf;
