package io.allot.worker;

import io.allot.store.Ownership;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases in the store the units whose stop the application confirmed, as soon as it confirms: the first half of a
 * fast planned handoff (the next owner claims on the store's release announcement). A thread of its own waits for
 * confirmations ({@link #request()}), so a release never waits for the reconciliation round in progress; the rounds
 * and the shutdown call {@link #releaseConfirmed()} too (after a failed release, and to finish at cancel).
 *
 * <p>Safety is the {@link Reconciler}'s: only CONFIRMED runs are released, each by its own token
 * (compare-and-delete in the store), with the release hold when the application released the unit. Several confirmed
 * units are released in parallel (each release is independent), at most {@code maxConcurrentMoves} (and 8) at once,
 * so a wave of confirmations costs about one store round trip instead of one per unit.
 *
 * <p>Guards: {@code releasing} is held by whoever releases (this thread, a round, the shutdown), so each confirmed
 * unit is released once; it is taken before the {@link StateLock} and never while holding it, and nothing that
 * fences waits for it. The request queue and the executor are thread-safe; the thread is set once by
 * {@link #start}; {@code on} is volatile.
 */
final class Releaser {
  private static final Logger log = LoggerFactory.getLogger(Releaser.class);

  private final Settings settings;
  private final Ownership ownership;
  private final StateLock lock;
  private final Reconciler units;
  private final Counters counters;
  private final Runnable onFailure;
  /** At most one pending request; thread-safe. */
  private final ArrayBlockingQueue<Boolean> requests = new ArrayBlockingQueue<>(1);
  /** Held while releasing (see the class comment). */
  private final ReentrantLock releasing = new ReentrantLock();
  /** The parallel releases; its threads end when idle. */
  private final ThreadPoolExecutor parallel;
  /** Set once by {@link #start}. */
  private volatile String memberId;
  /** Set once by {@link #start}. */
  private volatile Thread thread;
  /** False once {@link #stop()} ran. */
  private volatile boolean on = true;

  /**
   * @param onFailure called (on the releaser's thread) when a release failed, so that a round retries it
   */
  Releaser(Settings settings, Ownership ownership, StateLock lock, Reconciler units, Counters counters,
      Runnable onFailure) {
    this.settings = settings;
    this.ownership = ownership;
    this.lock = lock;
    this.units = units;
    this.counters = counters;
    this.onFailure = onFailure;
    int n = Math.max(1, Math.min(settings.maxConcurrentMoves(), 8));
    this.parallel = new ThreadPoolExecutor(n, n, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        MemberSession.daemon("allot-worker-release-" + settings.pool()));
    this.parallel.allowCoreThreadTimeOut(true);
  }

  /** Starts the releaser's thread. */
  void start(String memberId, String tag) {
    this.memberId = memberId;
    Thread t = MemberSession.daemon("allot-worker-releaser-" + tag).newThread(this::run);
    thread = t;
    t.start();
  }

  /** A stop was confirmed: release now. Any thread; never blocks. */
  void request() {
    requests.offer(Boolean.TRUE);
  }

  /** Ends the thread (at the end of the shutdown); releases already under way finish. */
  void stop() {
    on = false;
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
    parallel.shutdown();
  }

  private void run() {
    while (on) {
      try {
        requests.take();
      } catch (InterruptedException e) {
        continue; // stop()
      }
      try {
        releaseConfirmed();
      } catch (RuntimeException e) {
        counters.storeErrors.incrementAndGet();
        onFailure.run();
        log.debug("pool={} member={} releasing confirmed units failed (the next round retries): {}", settings.pool(),
            memberId, e.toString());
      }
    }
  }

  /**
   * Releases in the store every unit whose stop was confirmed, in parallel when there are several; a unit the
   * application released with the release hold ({@link Ownership#release(String, String, long, java.time.Duration)}),
   * so that the distributor gives it to another member meanwhile. One caller at a time (a unit is released once).
   * Units whose release failed stay confirmed (the next call retries them); throws the first failure.
   */
  void releaseConfirmed() {
    releasing.lock();
    try {
      List<Reconciler.Owned> confirmed = lock.get(units::confirmed);
      if (confirmed.size() == 1 || parallel.isShutdown()) {
        for (Reconciler.Owned o : confirmed) {
          releaseOne(o);
        }
        return;
      }
      List<CompletableFuture<Void>> calls = new ArrayList<>(confirmed.size());
      for (Reconciler.Owned o : confirmed) {
        calls.add(CompletableFuture.runAsync(() -> releaseOne(o), parallel));
      }
      RuntimeException first = null;
      for (CompletableFuture<Void> c : calls) {
        try {
          c.join();
        } catch (CompletionException e) {
          if (first == null) {
            first = e.getCause() instanceof RuntimeException r ? r : e;
          }
        }
      }
      if (first != null) {
        throw first;
      }
    } finally {
      releasing.unlock();
    }
  }

  private void releaseOne(Reconciler.Owned o) {
    boolean hold = lock.get(() -> o.hold); // set under the lock by Divider.release
    boolean ok = hold
        ? ownership.release(o.unit, memberId, o.token, settings.releaseHold())
        : ownership.release(o.unit, memberId, o.token);
    lock.run(() -> {
      if (units.released(o)) {
        lock.signalAll();
      }
    });
    if (ok) {
      counters.releases.incrementAndGet();
    } else {
      log.info("pool={} member={} unit {} (token {}) was no longer owned when released", settings.pool(), memberId,
          o.unit, o.token);
    }
  }
}
