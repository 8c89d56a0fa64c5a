package dev.sparksavepoint.checkpoint;

import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertFalse;
import static dev.sparksavepoint.testing.Assert.assertThrows;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.testing.Test;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;

public class BrokenConnectionsTest {
  private static final String STALE =
      "End of File Exception between local host is: \"vm/127.0.0.1\"; destination host is:"
          + " \"localhost\":33713; : java.io.EOFException";

  @Test
  public void aBrokenConnectionIsRetriedAndAnyOtherErrorIsNot() throws Exception {
    assertTrue(BrokenConnections.broken(new EOFException(STALE)), "stale connection");
    assertTrue(
        BrokenConnections.broken(new IOException("call failed", new ConnectException("refused"))),
        "refused connection");
    assertFalse(BrokenConnections.broken(new EOFException("Unexpected end")), "truncated file");
    int[] calls = {0};
    String read =
        BrokenConnections.retried(
            () -> {
              if (++calls[0] == 1) throw new EOFException(STALE);
              return "read";
            });
    assertEquals("read", read);
    assertEquals(2, calls[0], "calls");
    calls[0] = 0;
    assertThrows(
        EOFException.class,
        () ->
            BrokenConnections.retried(
                () -> {
                  calls[0]++;
                  throw new EOFException("Unexpected end");
                }));
    assertEquals(1, calls[0], "calls of a read that fails otherwise");
  }
}
