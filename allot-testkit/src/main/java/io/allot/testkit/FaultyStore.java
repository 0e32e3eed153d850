package io.allot.testkit;

import io.allot.store.Leadership;
import io.allot.store.Membership;
import io.allot.store.Notifications;
import io.allot.store.Ownership;
import io.allot.store.RouteWeights;
import io.allot.store.SeedKeys;
import io.allot.store.Store;
import io.allot.store.StoreClock;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Tables;
import io.allot.store.jobs.JobQueue;
import io.allot.store.spi.AbstractStore;
import io.allot.store.tasks.TaskSpecs;
import java.util.Objects;

/**
 * A store decorator for fault injection: every call of every role goes through the faults, which, by
 * the current {@link Availability}, lets it through, fails it with {@link StoreUnavailableException} ({@link Availability#DOWN}), or
 * blocks it until the mode changes and then fails it as a timeout whose outcome is unknown ({@link Availability#HANG}: a
 * partition where requests time out late). An optional {@link Interceptor} sees each call by name first
 * ({@code "ownership.claimAll"}) and may throw or delay.
 *
 * <p>Each role is forwarded by a dynamic proxy of the role's interface ({@link Faults}), so every method of it, one the
 * role gains later too, goes through the fault: never a call that silently skips it.
 * {@link Notifications#subscribe} is let through in every availability (pub/sub is only a hint; subscriptions stay active).
 * Closing this store does not close the delegate.
 */
public final class FaultyStore extends AbstractStore {

  /** How calls behave. */
  public enum Availability {
    /** Calls go through. */
    UP,
    /** Calls fail at once with {@link StoreUnavailableException}. */
    DOWN,
    /** Calls block until the mode changes, then fail with {@link StoreUnavailableException} (outcome unknown). */
    HANG
  }

  /** Sees every call before it is forwarded; may throw (the call fails) or block. */
  @FunctionalInterface
  public interface Interceptor {
    void before(String call);
  }

  private final Store delegate;
  private final Faults faults;

  /** A decorator over {@code delegate}, in mode {@link Availability#UP}. */
  public FaultyStore(Store delegate) {
    this(Objects.requireNonNull(delegate, "delegate"), new Faults());
  }

  private FaultyStore(Store delegate, Faults faults) {
    super(delegate.safety(), // a local value: no fault
        faults.wrap(StoreClock.class, "clock", delegate.clock()),
        faults.wrap(Leadership.class, "leadership", delegate.leadership()),
        faults.wrap(Tables.class, "tables", delegate.tables()),
        faults.wrap(Notifications.class, "notifications", delegate.notifications()),
        faults.wrap(SeedKeys.class, "seedKeys", delegate.seedKeys()));
    this.delegate = delegate;
    this.faults = faults;
  }

  /** Switches the mode; blocked calls wake up. */
  public void availability(Availability m) {
    faults.availability(m);
  }

  /** The current mode. */
  public Availability availability() {
    return faults.availability();
  }

  /** Sets the interceptor (replacing the previous one). */
  public void intercept(Interceptor i) {
    faults.intercept(i);
  }

  /** The store decorated. */
  public Store delegate() {
    return delegate;
  }

  @Override
  public String describe() {
    return "faulty(" + delegate.describe() + ")";
  }

  @Override
  public Membership membership(String pool) {
    return faults.wrap(Membership.class, "membership", delegate.membership(pool));
  }

  @Override
  public Ownership ownership(String pool) {
    return faults.wrap(Ownership.class, "ownership", delegate.ownership(pool));
  }

  @Override
  public RouteWeights routeWeights(String pool) {
    return faults.wrap(RouteWeights.class, "routeWeights", delegate.routeWeights(pool));
  }

  /** The event history, with faults applied to every call ({@code events.<method>}). */
  @Override
  public io.allot.store.events.Events events() {
    return faults.wrap(io.allot.store.events.Events.class, "events", delegate.events());
  }

  /** The queue, with faults applied to every call ({@code jobQueue.<method>}). */
  @Override
  public JobQueue jobQueue(String name) {
    return faults.wrap(JobQueue.class, "jobQueue", delegate.jobQueue(name));
  }

  /** The queues as a whole, with faults applied to every call ({@code jobQueues.<method>}). */
  @Override
  public io.allot.store.jobs.JobQueues jobQueues() {
    return faults.wrap(io.allot.store.jobs.JobQueues.class, "jobQueues", delegate.jobQueues());
  }

  /** The specs, with faults applied to every call ({@code taskSpecs.<method>}). */
  @Override
  public TaskSpecs taskSpecs(String pool) {
    return faults.wrap(TaskSpecs.class, "taskSpecs", delegate.taskSpecs(pool));
  }

  @Override
  public void close() {
    availability(Availability.UP); // release hanging callers
  }
}
