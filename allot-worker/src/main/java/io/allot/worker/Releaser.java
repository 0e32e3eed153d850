package io.allot.worker;

import io.allot.store.Handoff;
import io.allot.store.Ownership;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases in the store the units whose stop the application confirmed, as soon as it confirms: the first half of a
 * fast planned handoff (the next owner claims on the store's release announcement). A thread of its own waits for
 * confirmations ({@link #request()}), so a release never waits for the reconciliation round in progress; the rounds
 * call {@link #releaseConfirmedUnlessBusy()} (after a failed release) and the shutdown {@link #releaseConfirmed()} (to
 * finish at cancel).
 *
 * <p>A confirmed {@code REASSIGNED} run is handed to the member the table now gives its unit to ({@link
 * Ownership#handOffAll}): the store grants it to that member's live session in the release's own step, and the new
 * owner starts it on the announcement, without a claim (the push handoff); the table's owners come from the loop,
 * read once per target read. Other stops, and units the table gives to nobody else, are plain releases.
 *
 * <p>Safety is the {@link Reconciler}'s: only CONFIRMED runs are released, each by its own token
 * (compare-and-delete in the store), with the release hold when the application released the unit. The units
 * confirmed meanwhile are released together, {@link Ownership#releaseAll} (at most {@value #BATCH} a call; each
 * release still atomic on its own), so a wave of confirmations costs one store round trip and one store write
 * instead of one per unit: on PostgreSQL, whose NOTIFYing transactions commit one at a time, a release per unit
 * queued the handoffs behind each other's commits. Units released with a hold (rare) go one by one.
 *
 * <p>Guards: {@code releasing} is held by whoever releases (this thread, a round, the shutdown), so each confirmed
 * unit is released once; it is taken before the {@link StateLock} and never while holding it, and nothing that
 * fences waits for it. The request queue is thread-safe; the thread is set once by {@link #start}; {@code on} is
 * volatile.
 */
final class Releaser {
  private static final Logger log = LoggerFactory.getLogger(Releaser.class);
  /** Most units released in one store call. */
  static final int BATCH = 256;

  private final Settings settings;
  private final DividerBackend backend;
  private final Ownership ownership;
  private final StateLock lock;
  private final Reconciler units;
  private final Counters counters;
  private final Runnable wakeLoop;
  /** The table's next owner of units (a hint; empty when unknown); thread-safe. */
  private final java.util.function.Function<java.util.Collection<String>, Map<String, String>> newOwners;
  /** At most one pending request; thread-safe. */
  private final Wakeup requests;
  /** Held while releasing (see the class comment); the backend's, since it is held across store calls. */
  private final Lock releasing;
  /** Set once by {@link #start}. */
  private volatile String memberId;
  /** Set once by {@link #start}. */
  private volatile DividerBackend.Strand thread;
  /** False once {@link #stop()} ran. */
  private volatile boolean on = true;

  /**
   * @param wakeLoop called (on the releaser's thread) when a release failed, so that a round retries it, and when
   *     units were released, so that a round uses the room they leave (a round does not wait for the releaser)
   */
  Releaser(Settings settings, DividerBackend backend, Ownership ownership, StateLock lock, Reconciler units, Counters counters,
      Runnable wakeLoop) {
    this(settings, backend, ownership, lock, units, counters, wakeLoop, u -> Map.of());
  }

  /**
   * @param newOwners the member the table gives each of the units to (a hint; units it leaves out are just
   *     released): each {@code REASSIGNED} unit is handed to it in the release's store step ({@link
   *     Ownership#handOffAll}), so the next owner starts it on the announcement without a claim
   */
  Releaser(Settings settings, DividerBackend backend, Ownership ownership, StateLock lock, Reconciler units, Counters counters,
      Runnable wakeLoop, java.util.function.Function<java.util.Collection<String>, Map<String, String>> newOwners) {
    this.newOwners = newOwners;
    this.settings = settings;
    this.backend = backend;
    this.requests = new Wakeup(backend);
    this.releasing = backend.newLock();
    this.ownership = ownership;
    this.lock = lock;
    this.units = units;
    this.counters = counters;
    this.wakeLoop = wakeLoop;
  }

  /** Starts the releaser's thread. */
  void start(String memberId, String tag) {
    this.memberId = memberId;
    thread = backend.start("allot-worker-releaser-" + tag, this::run);
  }

  /** A stop was confirmed: release now. Any thread; never blocks. */
  void request() {
    requests.raise();
  }

  /** Ends the thread (at the end of the shutdown); releases already under way finish. */
  void stop() {
    on = false;
    DividerBackend.Strand t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  private void run() {
    while (on) {
      try {
        requests.take();
      } catch (InterruptedException e) {
        continue; // stop()
      }
      try {
        if (releaseConfirmed() > 0) {
          wakeLoop.run();
        }
      } catch (RuntimeException e) {
        counters.storeErrors.incrementAndGet();
        wakeLoop.run();
        log.debug("pool={} member={} releasing confirmed units failed (the next round retries): {}", settings.pool(),
            memberId, e.toString());
      }
    }
  }

  /**
   * Releases in the store every unit whose stop was confirmed, in batches; a unit the application released with the
   * release hold ({@link Ownership#release(String, String, long, java.time.Duration)}) on its own, so that the
   * distributor gives it to another member meanwhile. One caller at a time (a unit is released once). Units whose
   * release failed stay confirmed (the next call retries them); throws the first failure, after trying the rest.
   *
   * @return how many units were released
   */
  int releaseConfirmed() {
    releasing.lock();
    try {
      return releaseLocked();
    } finally {
      releasing.unlock();
    }
  }

  /**
   * {@link #releaseConfirmed()} unless another caller is releasing: the reconciliation round's call, which must not
   * wait for the releaser's store call (the round's stops and claims would queue behind every release). Nothing is
   * left behind: the caller holding the lock is releasing, and a stop confirmed after it read the confirmed units
   * asked the releaser's thread for another pass ({@link #request()}).
   */
  void releaseConfirmedUnlessBusy() {
    if (!releasing.tryLock()) {
      return;
    }
    try {
      releaseLocked();
    } finally {
      releasing.unlock();
    }
  }

  private int releaseLocked() {
    List<Reconciler.Owned> plain = new ArrayList<>();
    List<Reconciler.Owned> held = new ArrayList<>();
    lock.run(() -> { // hold is set under the lock by Divider.release
      for (Reconciler.Owned o : units.confirmed()) {
        (o.hold ? held : plain).add(o);
      }
    });
    RuntimeException first = null;
    int released = 0;
    for (List<Reconciler.Owned> batch : batches(plain)) {
      try {
        released += releaseBatch(batch);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    for (Reconciler.Owned o : held) {
      try {
        released += releaseHeld(o) ? 1 : 0;
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
    return released;
  }

  /** {@code runs} cut into batches of at most {@link #BATCH}, each unit at most once in a batch. */
  static List<List<Reconciler.Owned>> batches(List<Reconciler.Owned> runs) {
    List<List<Reconciler.Owned>> out = new ArrayList<>();
    List<Reconciler.Owned> rest = runs;
    while (!rest.isEmpty()) {
      List<Reconciler.Owned> batch = new ArrayList<>();
      List<Reconciler.Owned> later = new ArrayList<>();
      Set<String> in = new HashSet<>();
      for (Reconciler.Owned o : rest) {
        if (batch.size() < BATCH && in.add(o.unit)) {
          batch.add(o);
        } else {
          later.add(o);
        }
      }
      out.add(batch);
      rest = later;
    }
    return out;
  }

  private int releaseBatch(List<Reconciler.Owned> batch) {
    Map<String, Long> tokens = new LinkedHashMap<>();
    List<String> reassigned = new ArrayList<>();
    for (Reconciler.Owned o : batch) {
      tokens.put(o.unit, o.token);
      if (o.stop == StopReason.REASSIGNED) {
        reassigned.add(o.unit);
      }
    }
    Map<String, String> to = reassigned.isEmpty() ? Map.of() : newOwners.apply(reassigned);
    Set<String> released = !to.isEmpty()
        ? ownership.handOffAll(handoffs(batch, to), memberId)
        : tokens.size() == 1
        ? (ownership.release(batch.get(0).unit, memberId, batch.get(0).token) ? tokens.keySet() : Set.of())
        : ownership.releaseAll(tokens, memberId);
    done(batch);
    counters.releases.addAndGet(released.size());
    for (Reconciler.Owned o : batch) {
      if (!released.contains(o.unit)) {
        notOwned(o);
      }
    }
    return released.size();
  }

  /** The batch as handoffs: each REASSIGNED unit to its table owner in {@code to}, the rest plain releases. */
  private static List<Handoff> handoffs(List<Reconciler.Owned> batch, Map<String, String> to) {
    List<Handoff> out = new ArrayList<>(batch.size());
    for (Reconciler.Owned o : batch) {
      out.add(new Handoff(o.unit, o.token, o.stop == StopReason.REASSIGNED ? to.get(o.unit) : null));
    }
    return out;
  }

  private boolean releaseHeld(Reconciler.Owned o) {
    boolean ok = ownership.release(o.unit, memberId, o.token, settings.releaseHold());
    done(List.of(o));
    if (ok) {
      counters.releases.incrementAndGet();
    } else {
      notOwned(o);
    }
    return ok;
  }

  /** The runs are released (or were no longer owned): forgotten, and whoever waits for them woken. */
  private void done(List<Reconciler.Owned> runs) {
    lock.run(() -> {
      boolean any = false;
      for (Reconciler.Owned o : runs) {
        any |= units.released(o);
      }
      if (any) {
        lock.signalAll();
      }
    });
  }

  private void notOwned(Reconciler.Owned o) {
    log.info("pool={} member={} unit {} (token {}) was no longer owned when released", settings.pool(), memberId,
        o.unit, o.token);
  }
}
