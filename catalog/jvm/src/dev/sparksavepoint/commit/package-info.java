/**
 * The commit protocol of an edit on the checkpoint folder, which never sees rows: claim batch
 * N+1 ({@link dev.sparksavepoint.commit.EditClaim}), commit it last or roll it back
 * ({@link dev.sparksavepoint.commit.CheckpointCommit}), tell a crashed edit from a running one
 * ({@link dev.sparksavepoint.commit.InterruptedEdit},
 * {@link dev.sparksavepoint.commit.WriterProcess}) and a stopped query from a live one
 * ({@link dev.sparksavepoint.commit.QueryActivity}), and report what an edit did. It knows an
 * edit through {@link dev.sparksavepoint.commit.BatchPlan}, which the {@code write} layer
 * implements. Depends on {@code checkpoint} and {@code errors}.
 */
package dev.sparksavepoint.commit;
