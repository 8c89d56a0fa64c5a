package dev.sparksavepoint.errors;

import static dev.sparksavepoint.testing.Assert.assertContains;
import static dev.sparksavepoint.testing.Assert.assertEquals;
import static dev.sparksavepoint.testing.Assert.assertFalse;
import static dev.sparksavepoint.testing.Assert.assertThrows;
import static dev.sparksavepoint.testing.Assert.assertTrue;

import dev.sparksavepoint.testing.Test;
import java.io.IOException;
import org.apache.spark.sql.AnalysisException;

public class ErrorsTest {
  @Test
  public void errorsCarryTheirClassStateAndOneLineMessage() {
    AnalysisException e = Errors.exception("SAVEPOINT_NO_SUCH_STATE", "No state 'x'\n  here.");
    assertEquals("SAVEPOINT_NO_SUCH_STATE", e.getCondition());
    assertEquals("42P01", e.getSqlState());
    assertEquals("[SAVEPOINT_NO_SUCH_STATE] No state 'x' here.", e.getMessage());
    assertTrue(Errors.isSavepointError(e), "ours");
    assertFalse(Errors.isSavepointError(new IllegalStateException("x")), "not ours");
  }

  @Test
  public void analysisThrowsWhatItBuilds() {
    AnalysisException e =
        assertThrows(
            AnalysisException.class,
            () -> Errors.readOnlyState("/c", "join_0", "left", "read-only for now."));
    assertEquals("SAVEPOINT_READ_ONLY_STATE", e.getCondition());
    assertEquals(
        "[SAVEPOINT_READ_ONLY_STATE] Cannot write state join_0.left of checkpoint"
            + " '/c': read-only for now.",
        e.getMessage());
  }

  @Test
  public void refusalsTravelAsClassAndDetail() {
    Errors.Refusal refusal =
        (Errors.Refusal) Errors.duplicateKey("/c", "agg_0", "default", "user=x");
    assertEquals("SAVEPOINT_DUPLICATE_KEY", refusal.errorClass());
    assertContains("key user=x more than once", refusal.detail());
    assertEquals(
        "SAVEPOINT_DUPLICATE_KEY",
        assertThrows(AnalysisException.class, refusal::raise).getCondition());
  }

  @Test
  public void damagedFilesNameFileBatchAndCause() {
    String message =
        assertThrows(
                AnalysisException.class,
                () ->
                    Errors.corruptFile(
                        "/c",
                        "commits/1",
                        "batch 1",
                        new IOException("the file is empty\nmore"),
                        "Restore it."))
            .getMessage();
    assertEquals(
        "[SAVEPOINT_CORRUPT_FILE] File commits/1 of checkpoint '/c' is damaged (the"
            + " file is empty), so batch 1 cannot be read or written. Restore it.",
        message);
    String state =
        Errors.unloadableState(
                "/c",
                "agg_0",
                0,
                "default",
                1,
                2,
                3,
                new RuntimeException("outer", new IOException("inner 2.delta")))
            .detail();
    assertContains("state/0/3/ (version 2 and the files it builds on: 2.delta", state);
    assertContains("(inner 2.delta)", state);
  }

  @Test
  public void aPartitionTooLargeForTheHeapIsNotCalledDamaged() {
    Errors.Refusal refusal =
        Errors.unloadableState(
            "/c",
            "agg_0",
            0,
            "default",
            1,
            2,
            3,
            new IllegalStateException(
                "CANNOT_LOAD_STATE_STORE", new OutOfMemoryError("Java heap space")));
    assertEquals("SAVEPOINT_OUT_OF_MEMORY", refusal.errorClass());
    assertContains(
        "loading state/0/3/ (version 2) ran out of heap (Java heap space)", refusal.detail());
    assertContains("spark.executor.memory", refusal.detail());
  }
}
