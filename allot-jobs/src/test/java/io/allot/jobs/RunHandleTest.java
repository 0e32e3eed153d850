package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.Test;

/**
 * An endpoint's stop of an attempt interrupts its handler whatever the order of the stop and the executor's future:
 * without the check in {@link RunHandle#attach}, a stop that came while the handler had started but its future was
 * not known yet only set the flag, and a handler blocked in I/O ran past the deadline the dispatcher relies on.
 */
class RunHandleTest {
  /** A future that records how it was cancelled. */
  private static final class Recording extends FutureTask<Void> {
    volatile Boolean interrupted;

    Recording() {
      super(() -> null);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      interrupted = mayInterruptIfRunning;
      return super.cancel(mayInterruptIfRunning);
    }
  }

  @Test
  void aStopBeforeTheFutureIsKnownInterruptsTheRunOnceItIs() {
    RunHandle h = new RunHandle();
    h.stop();
    assertThat(h.stopped()).isTrue();
    Recording f = new Recording();
    h.attach(f);
    assertThat(f.isCancelled()).isTrue();
    assertThat(f.interrupted).as("cancelled with an interrupt").isTrue();
  }

  @Test
  void aStopAfterTheFutureIsKnownInterruptsTheRun() {
    RunHandle h = new RunHandle();
    Recording f = new Recording();
    h.attach(f);
    assertThat(f.isCancelled()).isFalse();
    h.stop();
    assertThat(f.isCancelled()).isTrue();
    assertThat(f.interrupted).isTrue();
  }

  @Test
  void withoutAStopTheRunIsLeftAlone() {
    RunHandle h = new RunHandle();
    Future<Void> f = new CompletableFuture<>();
    h.attach(f);
    assertThat(f.isCancelled()).isFalse();
    assertThat(h.stopped()).isFalse();
  }
}
