/**
 * The tool's own settings ({@link dev.sparksavepoint.conf.Settings}), declared once for Java and
 * Python. Depends on nothing.
 */
package dev.sparksavepoint.conf;
