package dev.sparksavepoint.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import javax.security.sasl.AuthenticationException;
import org.apache.hive.service.auth.PasswdAuthenticationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HiveServer2's CUSTOM authentication against a password file: with
 * {@code hive.server2.authentication=CUSTOM},
 * {@code hive.server2.custom.authentication.class=dev.sparksavepoint.server.PasswordFileAuthenticator}
 * and the file's path in the JVM's system property {@value #PASSWORD_FILE_PROPERTY}, a JDBC
 * login (SASL PLAIN: user and password) is let in when the file's first non-blank line is
 * {@code user:password} with the same user and password, or is a bare {@code password} (any user
 * name). Passwords are compared in constant time.
 *
 * <p>The path is a system property, not a HiveConf setting, because HiveServer2 creates its
 * CUSTOM provider for each login from a fresh {@code new HiveConf()}, which sees only
 * hive-site.xml and system properties. The file is read at each login, so replacing it changes
 * the password without a restart; {@code spark-savepoint thriftserver --password-file} checks
 * that only its owner can read it before Spark starts. A refused login is logged as one warning
 * line (Thrift's own SASL loggers add a stack trace, which the CLI's quiet logs turn off).
 */
public final class PasswordFileAuthenticator implements PasswdAuthenticationProvider {
  /** The system property naming the password file. */
  public static final String PASSWORD_FILE_PROPERTY = "dev.sparksavepoint.passwordFile";

  private static final Logger LOG = LoggerFactory.getLogger(PasswordFileAuthenticator.class);

  @Override
  public void Authenticate(String user, String password) throws AuthenticationException {
    String[] expected = credential(passwordFile());
    boolean userMatches = expected[0] == null || expected[0].equals(user);
    if (!(userMatches & same(expected[1], password))) {
      LOG.warn("Refused a JDBC login as user '{}': wrong user name or password", user);
      throw new AuthenticationException("Wrong user name or password for user " + user);
    }
  }

  private static Path passwordFile() throws AuthenticationException {
    String path = System.getProperty(PASSWORD_FILE_PROPERTY);
    if (path == null || path.isEmpty()) {
      throw new AuthenticationException(
          "No password file: system property " + PASSWORD_FILE_PROPERTY + " is not set");
    }
    return Path.of(path);
  }

  /** {user or null, password}: the file's first non-blank line. */
  static String[] credential(Path file) throws AuthenticationException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new AuthenticationException("Cannot read the password file " + file, e);
    }
    for (String line : lines) {
      String text = line.strip();
      if (text.isEmpty()) continue;
      int colon = text.indexOf(':');
      return colon < 0
          ? new String[] {null, text}
          : new String[] {text.substring(0, colon), text.substring(colon + 1)};
    }
    throw new AuthenticationException("The password file " + file + " is empty");
  }

  private static boolean same(String expected, String given) {
    byte[] a = expected.getBytes(StandardCharsets.UTF_8);
    byte[] b = (given == null ? "" : given).getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(a, b);
  }
}
