package dev.sparksavepoint.server;

import static dev.sparksavepoint.testing.Assert.assertContains;
import static dev.sparksavepoint.testing.Assert.assertThrows;

import dev.sparksavepoint.testing.TempFolders;
import dev.sparksavepoint.testing.Test;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.security.sasl.AuthenticationException;

public class PasswordFileAuthenticatorTest {
  private static final String PROPERTY = PasswordFileAuthenticator.PASSWORD_FILE_PROPERTY;

  private static void withFile(String text, Action check) throws Exception {
    Path file = TempFolders.create("password-").resolve("password");
    Files.writeString(file, text);
    System.setProperty(PROPERTY, file.toString());
    try {
      check.run(new PasswordFileAuthenticator());
    } finally {
      System.clearProperty(PROPERTY);
    }
  }

  private interface Action {
    void run(PasswordFileAuthenticator authenticator) throws Exception;
  }

  @Test
  public void aUserAndPasswordLineLetsInThatUserWithThatPasswordOnly() throws Exception {
    withFile(
        "\nanalyst:pa:ss\n",
        authenticator -> {
          authenticator.Authenticate("analyst", "pa:ss");
          assertContains(
              "for user analyst",
              assertThrows(
                      AuthenticationException.class,
                      () -> authenticator.Authenticate("analyst", "pa"))
                  .getMessage());
          assertThrows(
              AuthenticationException.class, () -> authenticator.Authenticate("someone", "pa:ss"));
          assertThrows(
              AuthenticationException.class, () -> authenticator.Authenticate("analyst", null));
        });
  }

  @Test
  public void aBarePasswordLetsInAnyUserName() throws Exception {
    withFile(
        "s3cret\n",
        authenticator -> {
          authenticator.Authenticate("anyone", "s3cret");
          authenticator.Authenticate("", "s3cret");
          assertThrows(
              AuthenticationException.class, () -> authenticator.Authenticate("anyone", "s3cret2"));
        });
  }

  @Test
  public void anEmptyFileOrNoFileLetsNoOneIn() throws Exception {
    withFile(
        "\n \n",
        authenticator ->
            assertContains(
                "is empty",
                assertThrows(
                        AuthenticationException.class, () -> authenticator.Authenticate("a", ""))
                    .getMessage()));
    assertContains(
        PROPERTY,
        assertThrows(
                AuthenticationException.class,
                () -> new PasswordFileAuthenticator().Authenticate("a", "b"))
            .getMessage());
  }
}
