package io.allot.jobs;

import io.allot.store.StoreUnavailableException;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the locks of claimed attempts (a {@link JobWorker}'s running and waiting jobs, a {@link JobDispatcher}'s jobs
 * waiting for a credit or out on a live stream) until their results are reported or the client lets them go.
 *
 * <p>The rule: each {@link #pass} extends every kept lock with less than two thirds of its TTL left, so a lock is
 * extended while at least a third of it remains as long as passes come at least every third of the TTL (the worker
 * passes every sixth, the dispatcher every tick). An extension the store refuses means the token no longer holds the
 * lock: the attempt is stopped ({@link HeldLock#stopRequested()}), no longer kept, and the pass's caller told
 * ({@code onLost}: the dispatcher sends a Cancel). A lock that ran out because the store could not be reached is
 * treated the same. A lock whose result is being reported is not extended, and its refusal is not a loss (it may be
 * the report itself).
 *
 * <p>No threads: the owner calls {@code pass()} from one thread at a time. Guards: {@code kept} is a concurrent set;
 * the per-lock state is {@link HeldLock}'s (volatile).
 */
final class LockKeeper {
  private static final Logger log = LoggerFactory.getLogger(LockKeeper.class);

  private final JobQueue queue;
  private final Duration ttl;
  private final LongSupplier nanos;
  private final Set<HeldLock> kept = ConcurrentHashMap.newKeySet();
  /** Locks extended so far (an atomic: read by the meters). */
  private final java.util.concurrent.atomic.AtomicLong extensions = new java.util.concurrent.atomic.AtomicLong();

  /**
   * @param ttl   the lock TTL claims and extensions ask for
   * @param nanos the local monotonic clock
   */
  LockKeeper(JobQueue queue, Duration ttl, LongSupplier nanos) {
    this.queue = queue;
    this.ttl = ttl;
    this.nanos = nanos;
  }

  /** Locks extended since this keeper was made (for {@code allot.jobs.lock.extensions}). */
  long extensions() {
    return extensions.get();
  }

  Duration ttl() {
    return ttl;
  }

  LongSupplier clock() {
    return nanos;
  }

  /** Keeps the lock of a job claimed by a call sent at {@code sentNanos}. */
  HeldLock hold(ClaimedJob job, long sentNanos) {
    HeldLock l = new HeldLock(job, sentNanos + ttl.toNanos(), nanos);
    kept.add(l);
    return l;
  }

  /** Stops extending a lock: its result is being reported. */
  void reporting(HeldLock l) {
    l.startReporting();
    kept.remove(l);
  }

  /** Stops extending a lock without a result (its stream broke, its leader stepped down): it is left to expire. */
  void abandon(HeldLock l) {
    kept.remove(l);
  }

  /** How many locks are kept. */
  int size() {
    return kept.size();
  }

  /** The kept locks a pass at {@code now} extends: less than two thirds of the TTL left. Pure. */
  List<HeldLock> due(long now) {
    long threshold = ttl.toNanos() * 2 / 3;
    List<HeldLock> due = new ArrayList<>();
    for (HeldLock l : kept) {
      if (!l.isReporting() && l.heldUntilNanos() - now < threshold) {
        due.add(l);
      }
    }
    return due;
  }

  /**
   * Extends the due locks, one store call each; stops the attempts that lost theirs.
   *
   * @param onLost told of each attempt that lost its lock, with why
   */
  void pass(BiConsumer<HeldLock, String> onLost) {
    for (HeldLock l : due(nanos.getAsLong())) {
      if (l.stopRequested()) {
        lost(l, onLost, "its lock ran out before it could be extended");
        continue;
      }
      long sent = nanos.getAsLong();
      try {
        if (queue.extend(l.key(), l.token(), ttl)) {
          extensions.incrementAndGet();
          if (!l.extended(sent, ttl.toNanos())) {
            lost(l, onLost, "its lock ran out before the extension was answered");
          }
        } else if (l.refuse()) {
          lost(l, onLost, "its lock was lost (it expired and was taken over, or the job was retried or ignored by "
              + "hand)");
        }
      } catch (StoreUnavailableException e) {
        if (l.stopRequested()) {
          lost(l, onLost, "its lock could not be extended before it ran out (" + e.getMessage() + ")");
        } else {
          log.warn("queue {}: could not extend the lock of {}: {}", queue.name(), l, e.getMessage());
        }
      } catch (RuntimeException e) {
        log.error("queue {}: extending the lock of {} failed", queue.name(), l, e);
      }
    }
  }

  private void lost(HeldLock l, BiConsumer<HeldLock, String> onLost, String why) {
    if (!kept.remove(l) || l.isReporting()) {
      return;
    }
    log.warn("queue {}: {} stops: {}", queue.name(), l, why);
    try {
      onLost.accept(l, why);
    } catch (RuntimeException e) {
      log.warn("queue {}: handling the lost lock of {} failed", queue.name(), l, e);
    }
  }
}
