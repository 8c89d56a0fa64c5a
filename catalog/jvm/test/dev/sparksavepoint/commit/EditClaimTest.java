package dev.sparksavepoint.commit;

import static dev.sparksavepoint.testing.Assert.assertEquals;

import dev.sparksavepoint.testing.Test;
import java.util.UUID;

public class EditClaimTest {
  @Test
  public void claimFilesNameTheirBatch() {
    UUID writer = UUID.fromString("6f1c8e52-9b0a-4c1e-a3f2-0d5e8b7a9c01");
    String name = EditClaim.fileName(12, writer);
    assertEquals("12.6f1c8e52-9b0a-4c1e-a3f2-0d5e8b7a9c01.json", name);
    assertEquals(12L, EditClaim.batchOf(name), "round trip");
    assertEquals("_savepoint/edits", EditClaim.FOLDER);
  }

  @Test
  public void otherFilesClaimNothing() {
    assertEquals(-1L, EditClaim.batchOf(".12.abc.json.4f.tmp"), "a claim being written");
    assertEquals(-1L, EditClaim.batchOf("abc.json"), "no batch");
    assertEquals(-1L, EditClaim.batchOf("12.abc.txt"), "not json");
    assertEquals(-1L, EditClaim.batchOf("12"), "no writer");
  }
}
