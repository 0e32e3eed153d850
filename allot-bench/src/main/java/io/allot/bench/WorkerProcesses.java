package io.allot.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The worker processes of one {@code bench jobs} run ({@link JobWorkerProcess}, each a JVM of its own): started and
 * ready before the clock starts, their {@code done} counts followed as they come, stopped at the end with their
 * {@code stats} lines. Guards: {@code done} is atomic (one slot per process, written by its reader thread); {@code
 * stats} is guarded by itself; the rest is set up once by the constructor.
 */
final class WorkerProcesses implements AutoCloseable {
  private final List<Process> processes = new ArrayList<>();
  private final List<Thread> readers = new ArrayList<>();
  private final AtomicLongArray done;
  private final List<String> stats = new ArrayList<>();
  private final Object progress = new Object();

  /** Starts one process per argument list and waits until each printed {@code ready}. */
  WorkerProcesses(List<List<String>> argLists) throws IOException {
    done = new AtomicLongArray(argLists.size());
    String java = ProcessHandle.current().info().command().orElse("java");
    try {
      for (int i = 0; i < argLists.size(); i++) {
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
            JobWorkerProcess.class.getName()));
        cmd.addAll(argLists.get(i));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        processes.add(p);
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String first = r.readLine();
        if (!"ready".equals(first)) {
          throw new IllegalStateException("worker process " + argLists.get(i) + " did not start: " + first);
        }
        int slot = i;
        Thread t = new Thread(() -> read(slot, r), "qbench-process-" + i);
        t.setDaemon(true);
        t.start();
        readers.add(t);
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private void read(int slot, BufferedReader r) {
    try {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("done ")) {
          done.set(slot, Long.parseLong(line.substring(5).trim()));
          synchronized (progress) {
            progress.notifyAll();
          }
        } else if (line.startsWith("stats ")) {
          synchronized (stats) {
            stats.add(line.substring(6).trim());
          }
        }
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  /** Jobs completed so far over every process. */
  long done() {
    long n = 0;
    for (int i = 0; i < done.length(); i++) {
      n += done.get(i);
    }
    return n;
  }

  /** Waits until the processes completed {@code n} jobs together; false on timeout. */
  boolean awaitDone(long n, long timeoutSeconds) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    synchronized (progress) {
      long left;
      while (done() < n && (left = end - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(progress, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
      }
    }
    return done() >= n;
  }

  /** Stops every process (closes their standard input) and returns their {@code stats} lines. */
  List<String> stop() throws InterruptedException {
    for (Process p : processes) {
      try {
        p.getOutputStream().close();
      } catch (IOException e) {
        // already gone
      }
    }
    for (Process p : processes) {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    for (Thread t : readers) {
      t.join(10_000);
    }
    synchronized (stats) {
      return List.copyOf(stats);
    }
  }

  @Override
  public void close() {
    for (Process p : processes) {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    }
  }
}
