package dev.sparksavepoint.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * The process (a Spark driver) that makes an edit: host, pid and the process's start time. A
 * claim records it so that a later writer can tell a crashed edit from one still in progress:
 * only a writer on the same host can prove another gone (its pid ended, or now names a process
 * started at another time).
 */
record WriterProcess(String host, long pid, long startedMs) {

  /** This JVM. */
  static WriterProcess current() {
    ProcessHandle self = ProcessHandle.current();
    return new WriterProcess(localHost(), self.pid(), startOf(self).orElse(-1L));
  }

  /** True only when this process can prove the writer ended: same host, pid gone or reused. */
  boolean isGone() {
    if (!host.equals(localHost())) return false;
    Optional<ProcessHandle> process = ProcessHandle.of(pid);
    if (process.isEmpty() || !process.get().isAlive() || isZombie(pid)) return true;
    Optional<Long> started = startOf(process.get());
    return startedMs >= 0 && started.isPresent() && Math.abs(started.get() - startedMs) > 2_000;
  }

  /** True only when this process can see the writer running: same host, process alive. */
  boolean isRunningHere() {
    return host.equals(localHost()) && !isGone();
  }

  String describe() {
    return "pid "
        + pid
        + " on host "
        + host
        + (startedMs < 0 ? "" : ", started " + Instant.ofEpochMilli(startedMs));
  }

  void writeTo(ObjectNode json) {
    json.put("host", host).put("pid", pid).put("processStartedMs", startedMs);
  }

  static WriterProcess readFrom(JsonNode json) {
    return new WriterProcess(
        json.path("host").asText("?"),
        json.path("pid").asLong(-1),
        json.path("processStartedMs").asLong(-1));
  }

  /**
   * True when the process has ended but its parent has not collected it yet (Linux: state Z or
   * X in {@code /proc/<pid>/stat}, which ProcessHandle still reports alive). A halted driver
   * JVM stays so until the process that started it is collected too.
   */
  private static boolean isZombie(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      int end = stat.lastIndexOf(')');
      char state = end >= 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
      return state == 'Z' || state == 'X';
    } catch (IOException | RuntimeException e) {
      return false; // not Linux, or already gone (ProcessHandle says which)
    }
  }

  private static Optional<Long> startOf(ProcessHandle process) {
    return process.info().startInstant().map(Instant::toEpochMilli);
  }

  private static String localHost() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
