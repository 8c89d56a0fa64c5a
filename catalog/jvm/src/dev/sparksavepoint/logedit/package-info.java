/**
 * Edits of the query's logs rather than its state: a new batch whose offsets entry differs from
 * the last one (source positions {@link dev.sparksavepoint.logedit.PositionsEdit}, files seen
 * {@link dev.sparksavepoint.logedit.SeenFilesEdit}, the watermark
 * {@link dev.sparksavepoint.logedit.WatermarkEdit}) and whose state is the last state, carried
 * over unchanged ({@code store.CarryOver}). Depends on {@code store}, {@code commit},
 * {@code checkpoint} and {@code errors}.
 */
package dev.sparksavepoint.logedit;
