package io.allot.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Unix signals to a {@link Process} or a pid: {@link Signal#KILL} and {@link Signal#TERM} through
 * {@link ProcessHandle} (no binary needed), {@link Signal#STOP} and {@link Signal#CONT} through {@code kill(1)},
 * which {@link #available()} checks. Sending never waits for the process to react; callers wait on the effect
 * (the process gone, a port silent).
 */
public final class Signals {

  /** The signals tests use. */
  public enum Signal {
    /** Ends the process at once, without cleanup, as a crash would; works on a stopped process too. */
    KILL,
    /** Asks the process to end; it may clean up first (Redis saves, a worker flushes its lines). */
    TERM,
    /** Freezes the process: its sockets stay open but it answers nothing (a partition, a long GC pause). */
    STOP,
    /** Thaws a stopped process. */
    CONT
  }

  /** Whether kill(1) is there: null until first checked; racy initialisation is harmless (same answer). */
  private static volatile Boolean killBinary;

  private Signals() {}

  /** Whether every signal can be sent here (kill(1) runs). */
  public static boolean available() {
    Boolean known = killBinary;
    if (known == null) {
      known = Exec.succeeds(List.of("kill", "-0", Long.toString(ProcessHandle.current().pid())));
      killBinary = known;
    }
    return known;
  }

  /** Sends {@code signal} to {@code process}; see {@link #send(long, Signal)}. */
  public static void send(Process process, Signal signal) {
    Objects.requireNonNull(process, "process");
    send(process.pid(), signal);
  }

  /**
   * Sends {@code signal} to the process {@code pid}.
   *
   * @throws IllegalStateException if there is no such process, it may not be signalled, or kill(1) is missing (for
   *                               STOP and CONT)
   */
  public static void send(long pid, Signal signal) {
    Objects.requireNonNull(signal, "signal");
    if (pid == ProcessHandle.current().pid()) {
      throw new IllegalArgumentException("pid " + pid + " is this JVM: refusing to signal itself");
    }
    switch (signal) {
      case KILL, TERM -> {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty() || !h.get().isAlive()) {
          throw new IllegalStateException("cannot send SIG" + signal + ": no process " + pid);
        }
        boolean sent = signal == Signal.KILL ? h.get().destroyForcibly() : h.get().destroy();
        if (!sent && h.get().isAlive()) {
          throw new IllegalStateException("cannot send SIG" + signal + " to process " + pid);
        }
      }
      case STOP, CONT -> {
        if (!available()) {
          throw new IllegalStateException("cannot send SIG" + signal + " to process " + pid
              + ": kill(1) is not available here");
        }
        Exec.Result r = Exec.run(List.of("kill", "-" + signal.name(), Long.toString(pid)), Duration.ofSeconds(10));
        if (r.exit() != 0) {
          throw new IllegalStateException("kill -" + signal.name() + " " + pid + " failed: " + r.output());
        }
      }
    }
  }
}
