/**
 * What the servers of {@code spark-savepoint thriftserver} and {@code connect} load by class
 * name: the password check of the Thrift server's CUSTOM authentication
 * ({@link dev.sparksavepoint.server.PasswordFileAuthenticator}), and the one-line JDBC refusals
 * of the Thrift server's process ({@link dev.sparksavepoint.server.JdbcErrors}). Depends on no
 * other package of ours; HiveServer2's classes come from Spark's {@code spark-hive-thriftserver} jar.
 */
package dev.sparksavepoint.server;
