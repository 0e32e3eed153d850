package io.allot.worker;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers a divider's events to its listeners on one SDK thread, in the order they were emitted. Emitters hold the
 * {@link StateLock}, so events leave in the order of the state changes; the queue is unbounded, so emitting never
 * blocks (a dropped stop would be a unit running twice).
 *
 * <p>One safety rule lives here: a {@link UnitStart} emitted in one lease generation is withheld if, when its turn
 * comes, that generation has ended or the lease deadline has passed ({@link LeaseDeadline#startMayRun(long)}): it was
 * queued behind a slow listener, or emitted just before a process pause. Its {@code LEASE_LOST} stop still comes.
 */
final class EventDispatcher {
  private static final Logger log = LoggerFactory.getLogger(EventDispatcher.class);

  private final List<UnitListener> listeners;
  private final LeaseDeadline lease;
  private final StateLock lock;
  /** Set once by {@link #start}, before any event; volatile for the threads that emit. */
  private volatile ExecutorService executor;
  /** Set once by the executor's thread factory. */
  private volatile Thread thread;
  /** Set once by {@link #start}; for log lines. */
  private volatile String tag = "";

  /**
   * @param listeners the listeners, called in this order (the list may grow until {@link #start})
   * @param lease     decides whether a start may still be delivered
   * @param lock      the state lock, which every emitter holds
   */
  EventDispatcher(List<UnitListener> listeners, LeaseDeadline lease, StateLock lock) {
    this.listeners = listeners;
    this.lease = lease;
    this.lock = lock;
  }

  /** Starts the event thread, named after {@code tag} ({@code pool/member}). */
  void start(String tag) {
    this.tag = tag;
    executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "allot-worker-events-" + tag);
      t.setDaemon(true);
      thread = t;
      return t;
    });
  }

  /** True on the event thread (a listener callback). */
  boolean onEventThread() {
    return Thread.currentThread() == thread;
  }

  /** Queues {@code e}; the caller holds the state lock (the generation read here is the one the event belongs to). */
  void emit(UnitEvent e) {
    assert lock.isHeldByCurrentThread() : "events are emitted under the state lock, in the order of the changes";
    long generation = lease.generation();
    submit(() -> deliver(e, generation), e);
  }

  /** Queues the {@link UnitListener#onLeaseLost} callback. */
  void leaseLost(String reason) {
    submit(() -> {
      for (UnitListener l : listeners) {
        try {
          l.onLeaseLost(reason);
        } catch (RuntimeException ex) {
          log.warn("{} listener {} failed on lease loss", tag, l, ex);
        }
      }
    }, "lease lost");
  }

  /** Stops the thread after the queued events; waits up to 5 s for them unless called from a callback. */
  void shutdown() {
    ExecutorService ex = executor;
    if (ex == null) {
      return;
    }
    ex.shutdown();
    if (onEventThread()) {
      return;
    }
    try {
      if (!ex.awaitTermination(5, TimeUnit.SECONDS)) {
        log.warn("{} a listener callback did not return within 5 s of cancel", tag);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the thread after the queued events, without waiting. */
  void shutdownNoWait() {
    ExecutorService ex = executor;
    if (ex != null) {
      ex.shutdown();
    }
  }

  private void submit(Runnable task, Object what) {
    ExecutorService ex = executor;
    if (ex == null) {
      log.warn("{} event {} dropped: the divider is not started", tag, what);
      return;
    }
    try {
      ex.execute(task);
    } catch (RejectedExecutionException e) {
      log.warn("{} event {} dropped: the divider is closed", tag, what);
    }
  }

  private void deliver(UnitEvent e, long generation) {
    if (e instanceof UnitStart && !lease.startMayRun(generation)) {
      log.debug("{} start of {} withheld: the lease ran out before it could be delivered", tag, e);
      return;
    }
    for (UnitListener l : listeners) {
      try {
        if (e instanceof UnitStart s) {
          l.onStart(s);
        } else {
          l.onStop((UnitStop) e);
        }
      } catch (RuntimeException ex) {
        log.warn("{} listener failed on {}", tag, e, ex);
      }
    }
  }
}
