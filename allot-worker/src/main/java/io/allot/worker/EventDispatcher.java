package io.allot.worker;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
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
 *
 * <p>Guards: the queue and {@code open} by {@code queueLock} (the backend's lock, as every wait of the SDK); the
 * thread is set once by {@link #start}.
 */
final class EventDispatcher {
  private static final Logger log = LoggerFactory.getLogger(EventDispatcher.class);

  private final List<UnitListener> listeners;
  private final LeaseDeadline lease;
  private final StateLock lock;
  private final DividerBackend backend;
  private final Lock queueLock;
  private final Condition queued;
  /** Guarded by {@code queueLock}: the events (and callbacks) not yet delivered, in order. */
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  /** Guarded by {@code queueLock}: true from {@link #start} until {@link #shutdown()}. */
  private boolean open;
  /** Set once by {@link #start}. */
  private volatile DividerBackend.Strand thread;
  /** Set once by {@link #start}; for log lines. */
  private volatile String tag = "";

  /** The event history's writer of this member (self-fences, refused claims). */
  private final WorkerEvents history;

  /** The history of this member's self-fences and refused claims. */
  WorkerEvents history() {
    return history;
  }

  /**
   * @param listeners the listeners, called in this order (the list may grow until {@link #start})
   * @param lease     decides whether a start may still be delivered
   * @param lock      the state lock, which every emitter holds
   * @param backend   the event thread and its queue's lock
   * @param history   the member's writer into the event history
   */
  EventDispatcher(List<UnitListener> listeners, LeaseDeadline lease, StateLock lock, DividerBackend backend,
      WorkerEvents history) {
    this.history = history;
    this.listeners = listeners;
    this.lease = lease;
    this.lock = lock;
    this.backend = backend;
    this.queueLock = backend.newLock();
    this.queued = queueLock.newCondition();
  }

  /** Starts the event thread, named after {@code tag} ({@code pool/member}). */
  void start(String tag) {
    this.tag = tag;
    queueLock.lock();
    try {
      open = true;
    } finally {
      queueLock.unlock();
    }
    thread = backend.start("allot-worker-events-" + tag, this::run);
  }

  /** True on the event thread (a listener callback). */
  boolean onEventThread() {
    DividerBackend.Strand t = thread;
    return t != null && t.isCurrent();
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
    DividerBackend.Strand t = thread;
    shutdownNoWait();
    if (t == null || t.isCurrent()) {
      return;
    }
    try {
      if (!t.join(5_000_000_000L)) {
        log.warn("{} a listener callback did not return within 5 s of cancel", tag);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the thread after the queued events, without waiting. */
  void shutdownNoWait() {
    queueLock.lock();
    try {
      open = false;
      queued.signalAll();
    } finally {
      queueLock.unlock();
    }
  }

  private void submit(Runnable task, Object what) {
    queueLock.lock();
    try {
      if (open) {
        queue.add(task);
        queued.signalAll();
        return;
      }
    } finally {
      queueLock.unlock();
    }
    log.warn("{} event {} dropped: {}", tag, what, thread == null ? "the divider is not started"
        : "the divider is closed");
  }

  /** The event thread: runs the queued callbacks in order; ends once shut down and the queue is empty. */
  private void run() {
    while (true) {
      Runnable next;
      queueLock.lock();
      try {
        while (queue.isEmpty() && open) {
          queued.await();
        }
        next = queue.poll();
      } catch (InterruptedException e) {
        return;
      } finally {
        queueLock.unlock();
      }
      if (next == null) {
        return; // shut down, and nothing left
      }
      try {
        next.run();
      } catch (RuntimeException e) {
        log.warn("{} an event callback failed", tag, e);
      }
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
