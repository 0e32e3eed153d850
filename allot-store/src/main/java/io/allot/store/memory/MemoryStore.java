package io.allot.store.memory;

import io.allot.store.Membership;
import io.allot.store.RouteWeights;
import io.allot.store.Safety;
import io.allot.store.Store;
import io.allot.store.spi.AbstractStore;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The embedded store: everything in this JVM's memory, with the same semantics as the Redis and PostgreSQL stores
 * ({@code memory:}). Used by {@code allot dev} and by unit tests.
 *
 * <p>Like the Redis and PostgreSQL stores, each role is its own class: {@link MemorySeedKeys},
 * {@link MemoryLeadership}, {@link MemoryTables}, {@link MemoryMembership}, {@link MemoryOwnership},
 * {@link MemoryNotifications}, {@link MemoryRouteWeights}, over one {@link MemoryState} that holds the records they share and the one lock
 * that guards them all (see there for what is shared and why); {@link MemoryJobQueues} and {@link MemoryTaskSpecs}
 * keep records no other role touches, each under a lock of its own.
 *
 * <p>Thread-safe; every operation is short. Time is a monotonic nanosecond clock ({@link System#nanoTime()} unless
 * one is injected), so leases expire by this store's clock only; {@link StoreClock#timeMillis()} is the wall time at
 * construction advanced by that clock. Notifications are delivered in order on one daemon thread.
 *
 * <p>It cannot lose state on its own; {@link #crash(boolean)} simulates a restart (with or without its data) for
 * tests and the simulator, and the lost-state guard then applies as on the other stores: each pool's claims wait
 * {@link Safety#lostStateGuard()} from the first call after the restart. A store that was never crashed has kept its
 * state "forever", so new pools need no wait.
 */
public final class MemoryStore extends AbstractStore {
  private final MemoryState state;
  private final MemoryTables tables;
  /** Thread-safe on its own lock (its clock reads this store's clock). */
  private final MemoryJobQueues jobQueues;
  /** Thread-safe on its own lock; announces through this store's listeners. */
  private final MemoryTaskSpecs taskSpecs;
  /** Thread-safe on its own lock. */
  private final MemoryEvents events;

  /** A store on {@link System#nanoTime()} with the default safety settings. */
  public MemoryStore() {
    this(System::nanoTime);
  }

  /**
   * A store on an injected monotonic nanosecond clock (for tests: e.g. an {@code AtomicLong::get} advanced by hand;
   * moving it forward by more than expected is a store clock step), default safety settings.
   */
  public MemoryStore(LongSupplier nanoClock) {
    this(nanoClock, Safety.defaults(false));
  }

  /** A store on an injected clock with the given guard and clock margin (its findings are ignored). */
  public MemoryStore(LongSupplier nanoClock, Safety safety) {
    this(new MemoryState(nanoClock, safety));
  }

  private MemoryStore(MemoryState state) {
    this(state, new MemoryTables(state));
  }

  private MemoryStore(MemoryState state, MemoryTables tables) {
    super(new Safety(state.safety.lostStateGuard(), state.safety.clockMargin(), false,
            List.of("memory: in this process only; everything is lost when it exits")),
        state::now, new MemoryLeadership(state), tables, new MemoryNotifications(state), new MemorySeedKeys(state));
    this.state = state;
    this.tables = tables;
    this.jobQueues = new MemoryJobQueues(state::nowMicros, state.safety.clockMargin());
    this.taskSpecs = new MemoryTaskSpecs(state::now,
        (pool, name) -> state.listeners.dispatch(io.allot.store.Topic.taskSpecs(pool).channel(), name));
    this.events = new MemoryEvents(state::now, state::checkOpen);
  }

  /**
   * Simulates a restart of the store: a new incarnation, and, unless {@code keepData}, every record gone (lists,
   * tables, leases, members, owners, counters, holds, guards, route weights, jobs, task specs, events), as a Redis without
   * persistence would come back. For tests and the simulator. Subscriptions survive (a reconnecting client
   * re-subscribes).
   */
  public void crash(boolean keepData) {
    synchronized (state.lock) {
      state.checkOpen();
      state.incarnation++;
      state.crashedAtNanos = state.nanos();
      if (!keepData) {
        jobQueues.clear();
        taskSpecs.clear();
        events.clear();
        state.clear();
        tables.clear();
      }
    }
  }

  @Override
  public String describe() {
    return "memory:";
  }

  @Override
  public Membership membership(String pool) {
    return new MemoryMembership(state, Store.checkPool(pool));
  }

  @Override
  public io.allot.store.Ownership ownership(String pool) {
    return new MemoryOwnership(state, Store.checkPool(pool));
  }

  @Override
  public RouteWeights routeWeights(String pool) {
    return new MemoryRouteWeights(state, Store.checkPool(pool));
  }

  @Override
  public io.allot.store.jobs.JobQueue jobQueue(String name) {
    state.checkOpen();
    return jobQueues.queue(name);
  }

  @Override
  public io.allot.store.jobs.JobQueues jobQueues() {
    state.checkOpen();
    return () -> {
      state.checkOpen();
      return jobQueues.names();
    };
  }

  @Override
  public io.allot.store.tasks.TaskSpecs taskSpecs(String pool) {
    state.checkOpen();
    return taskSpecs.pool(pool);
  }

  @Override
  public io.allot.store.events.Events events() {
    return events;
  }

  @Override
  public void close() {
    synchronized (state.lock) {
      if (state.closed) {
        return;
      }
      state.closed = true;
    }
    state.listeners.close();
  }

  @Override
  public String toString() {
    return "MemoryStore";
  }
}
