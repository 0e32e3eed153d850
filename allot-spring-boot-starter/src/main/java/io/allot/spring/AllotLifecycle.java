package io.allot.spring;

import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts and stops one allot part (a worker, the job workers, a task runner) with the application context. All of
 * allot's parts share {@link #PHASE}: they start after the application's own default-phase beans are ready to start,
 * and stop first, each on a thread of its own, so their drains run side by side within Spring's shutdown phase
 * timeout ({@code spring.lifecycle.timeout-per-shutdown-phase}, 30 s by default). Keep the drain timeouts below it.
 */
public final class AllotLifecycle implements SmartLifecycle {
  /** The phase of every allot part: late start, early stop (before the web server's graceful shutdown). */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;
  private static final Logger log = LoggerFactory.getLogger(AllotLifecycle.class);

  private final String name;
  private final Runnable start;
  private final Runnable stop;
  /** Written under {@code this}; read by {@link #isRunning()} from any thread. */
  private volatile boolean running;

  /**
   * A lifecycle named {@code name} (for logs and the stopping thread) that runs {@code start} once on start and
   * {@code stop} once on stop (a graceful drain, then the release of its resources).
   */
  public AllotLifecycle(String name, Runnable start, Runnable stop) {
    this.name = Objects.requireNonNull(name, "name");
    this.start = Objects.requireNonNull(start, "start");
    this.stop = Objects.requireNonNull(stop, "stop");
  }

  /**
   * The lifecycle of a member: {@code start} on start; on stop it drains the member for at most {@code drain} (no
   * drain when zero), then runs {@code close}.
   */
  public static AllotLifecycle member(String name, io.allot.worker.Divider divider, Runnable start, Runnable close,
      java.time.Duration drain) {
    return new AllotLifecycle(name, start, () -> {
      if (!drain.isNegative() && !drain.isZero()) {
        divider.flush(drain);
      }
      close.run();
    });
  }

  @Override
  public synchronized void start() {
    if (!running) {
      start.run();
      running = true;
      log.info("allot {} started", name);
    }
  }

  @Override
  public void stop() {
    if (markStopped()) {
      stop.run();
    }
  }

  @Override
  public void stop(Runnable callback) {
    if (!markStopped()) {
      callback.run();
      return;
    }
    Thread t = new Thread(() -> {
      try {
        stop.run();
        log.info("allot {} stopped", name);
      } catch (RuntimeException e) {
        log.warn("allot {}: stopping failed", name, e);
      } finally {
        callback.run();
      }
    }, "allot-stop-" + name);
    t.start();
  }

  private synchronized boolean markStopped() {
    boolean was = running;
    running = false;
    return was;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /**
   * False: a member cannot be paused and resumed (a cancelled divider does not start again), so a paused context (the
   * Spring TestContext cache pauses the contexts it does not use) keeps its allot parts running until it is closed.
   */
  @Override
  public boolean isPauseable() {
    return false;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  @Override
  public String toString() {
    return "AllotLifecycle[" + name + (running ? ", running]" : "]");
  }
}
