package io.allot.sim;

import io.allot.store.Store;
import io.allot.store.memory.MemoryStore;

/**
 * The simulated store: the real {@link MemoryStore} (the reference implementation of every store rule: tokens, the
 * lost-state guard, the clock margin, holds) on a clock of its own, {@code virtual now + offset}. A clock step changes
 * the offset while the members keep the true virtual time; a restart is {@link MemoryStore#crash(boolean)} followed
 * by a downtime during which requests are lost.
 *
 * <p>The memory store's notifications go to a thread of its own; nothing here subscribes to them (the {@link Network}
 * delivers the announcements instead, deterministically).
 *
 * <p>Not thread-safe (confined to the simulation's thread).
 */
public final class SimStore implements AutoCloseable {
  private final Sim sim;
  private final MemoryStore store;
  /** The store's time origin in µs: tokens and sessions are traced relative to it. */
  private final long tokenBase;
  /** Store clock = virtual now + offset. */
  private long offsetNanos;
  /** Requests that reach the store before this time are lost (it is restarting). */
  private long downUntil = Long.MIN_VALUE;

  public SimStore(Sim sim, SimConfig config) {
    this.sim = sim;
    this.store = new MemoryStore(() -> sim.now() + offsetNanos, config.safety());
    this.tokenBase = store.clock().timeMillis() * 1_000L;
  }

  /** The store, for operations applied at the store (by the {@link Network}) and for the checker's oracle reads. */
  public Store store() {
    return store;
  }

  /** True while the store is up (requests reaching it are applied). */
  public boolean up() {
    return sim.now() >= downUntil;
  }

  /** Restarts the store: its state is kept or lost, and it answers nothing for {@code downtimeNanos}. */
  public void restart(boolean keepData, long downtimeNanos) {
    store.crash(keepData);
    downUntil = sim.now() + downtimeNanos;
  }

  /** Steps the store's clock by {@code deltaNanos} (forward if positive). */
  public void stepClock(long deltaNanos) {
    offsetNanos += deltaNanos;
  }

  /** A token or session relative to the store's time origin (the only wall-clock-dependent value of a run). */
  public long rel(long tokenOrSession) {
    return tokenOrSession - tokenBase;
  }

  @Override
  public void close() {
    store.close();
  }
}
