package io.allot.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a short command to its end and collects its output (standard output and error together). */
final class Exec {
  /** Exit status and output of a finished command. */
  record Result(int exit, String output) {}

  private Exec() {}

  /**
   * Runs {@code command}; its standard input is closed at once.
   *
   * @throws IllegalStateException if it cannot be started or does not finish within {@code timeout} (it is killed)
   */
  static Result run(List<String> command, Duration timeout) {
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
    }
    try {
      p.getOutputStream().close();
      // read on another thread so that a command which never ends cannot block this one past the timeout
      CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
        try {
          return p.getInputStream().readAllBytes();
        } catch (IOException e) {
          return new byte[0];
        }
      });
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish within " + timeout.toMillis()
            + " ms");
      }
      return new Result(p.exitValue(), new String(out.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8).trim());
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
    } catch (IOException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot read the output of " + String.join(" ", command) + ": " + e, e);
    }
  }

  /**
   * Runs {@code command} and returns its output.
   *
   * @throws IllegalStateException if it fails (non-zero exit), naming the command and showing its output
   */
  static String check(List<String> command, Duration timeout) {
    Result r = run(command, timeout);
    if (r.exit() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed (exit " + r.exit() + "): " + r.output());
    }
    return r.output();
  }

  /** Whether {@code command} runs and exits 0. */
  static boolean succeeds(List<String> command) {
    try {
      return run(command, Duration.ofSeconds(20)).exit() == 0;
    } catch (IllegalStateException e) {
      return false;
    }
  }
}
