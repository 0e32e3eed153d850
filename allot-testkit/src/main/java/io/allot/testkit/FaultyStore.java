package io.allot.testkit;

import io.allot.store.Leadership;
import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.Membership;
import io.allot.store.Notifications;
import io.allot.store.Ownership;
import io.allot.store.RouteWeights;
import io.allot.store.Safety;
import io.allot.store.SeedKeys;
import io.allot.store.Store;
import io.allot.store.StoreClock;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.store.UnitHold;
import io.allot.store.UnitOwner;
import io.allot.store.jobs.JobQueue;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.Consumer;

/**
 * A store decorator for fault injection: every call of every role goes through {@link #before(String)}, which, by
 * the current {@link Availability}, lets it through, fails it with {@link StoreUnavailableException} ({@link Availability#DOWN}), or
 * blocks it until the mode changes and then fails it as a timeout whose outcome is unknown ({@link Availability#HANG}: a
 * partition where requests time out late). An optional {@link Interceptor} sees each call by name first
 * ({@code "ownership.claimAll"}) and may throw or delay.
 *
 * <p>Each role is forwarded by a class that implements the role's interface in full; roles have no default methods,
 * so a new method in a role is a compile error here, never a call that silently skips the fault.
 * {@link Notifications#subscribe} is let through in every availability (pub/sub is only a hint; subscriptions stay active).
 * Closing this store does not close the delegate.
 */
public final class FaultyStore implements Store {

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
  private final Object gate = new Object();
  /** Guarded by {@code gate} for transitions; read without it on the fast path. */
  private volatile Availability mode = Availability.UP;
  private volatile Interceptor interceptor = call -> { };

  private final StoreClock clock;
  private final Leadership leadership;
  private final Tables tables;
  private final Notifications notifications;
  private final SeedKeys seedKeys;

  /** A decorator over {@code delegate}, in mode {@link Availability#UP}. */
  public FaultyStore(Store delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.clock = new FClock(delegate.clock());
    this.leadership = new FLeadership(delegate.leadership());
    this.tables = new FTables(delegate.tables());
    this.notifications = new FNotifications(delegate.notifications());
    this.seedKeys = new FSeedKeys(delegate.seedKeys());
  }

  /** Switches the mode; blocked calls wake up. */
  public void availability(Availability m) {
    synchronized (gate) {
      mode = Objects.requireNonNull(m, "mode");
      gate.notifyAll();
    }
  }

  /** The current mode. */
  public Availability availability() {
    return mode;
  }

  /** Sets the interceptor (replacing the previous one). */
  public void intercept(Interceptor i) {
    interceptor = Objects.requireNonNull(i, "interceptor");
  }

  /** The store decorated. */
  public Store delegate() {
    return delegate;
  }

  /** Applies the mode and the interceptor to the call named {@code call}. */
  void before(String call) {
    interceptor.before(call);
    Availability m = mode;
    if (m == Availability.UP) {
      return;
    }
    if (m == Availability.DOWN) {
      throw new StoreUnavailableException("test: store switched off (" + call + ")");
    }
    synchronized (gate) {
      while (mode == Availability.HANG) {
        try {
          gate.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StoreUnavailableException("test: interrupted while hanging (" + call + ")");
        }
      }
    }
    throw new StoreUnavailableException("test: request timed out (" + call + "); it may or may not have been applied");
  }

  @Override
  public String describe() {
    return "faulty(" + delegate.describe() + ")";
  }

  @Override
  public Safety safety() {
    return delegate.safety(); // a local value: no fault
  }

  @Override
  public StoreClock clock() {
    return clock;
  }

  @Override
  public Leadership leadership() {
    return leadership;
  }

  @Override
  public Membership membership(String pool) {
    return new FMembership(delegate.membership(pool));
  }

  @Override
  public Ownership ownership(String pool) {
    return new FOwnership(delegate.ownership(pool));
  }

  @Override
  public Tables tables() {
    return tables;
  }

  @Override
  public Notifications notifications() {
    return notifications;
  }

  @Override
  public SeedKeys seedKeys() {
    return seedKeys;
  }

  @Override
  public RouteWeights routeWeights(String pool) {
    return new FRouteWeights(delegate.routeWeights(pool));
  }

  /** The queue, with faults applied to every call ({@code jobQueue.<method>}). */
  @Override
  public JobQueue jobQueue(String name) {
    return new FaultyJobQueue(this, delegate.jobQueue(name));
  }

  /** The specs, with faults applied to every call ({@code taskSpecs.<method>}). */
  @Override
  public io.allot.store.tasks.TaskSpecs taskSpecs(String pool) {
    return new FaultyTaskSpecs(this, delegate.taskSpecs(pool));
  }

  @Override
  public void close() {
    availability(Availability.UP); // release hanging callers
  }

  private final class FClock implements StoreClock {
    private final StoreClock d;

    FClock(StoreClock d) {
      this.d = d;
    }

    @Override
    public long timeMillis() {
      before("clock.timeMillis");
      return d.timeMillis();
    }
  }

  private final class FLeadership implements Leadership {
    private final Leadership d;

    FLeadership(Leadership d) {
      this.d = d;
    }

    @Override
    public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) {
      before("leadership.tryAcquire");
      return d.tryAcquire(name, holder, ttl);
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
      before("leadership.renew");
      return d.renew(lease, ttl);
    }

    @Override
    public void release(Lease lease) {
      before("leadership.release");
      d.release(lease);
    }

    @Override
    public Optional<Lease> current(String name) {
      before("leadership.current");
      return d.current(name);
    }
  }

  private final class FMembership implements Membership {
    private final Membership d;

    FMembership(Membership d) {
      this.d = d;
    }

    @Override
    public String pool() {
      return d.pool();
    }

    @Override
    public long register(String id, MemberMeta meta, Duration ttl) {
      before("membership.register");
      return d.register(id, meta, ttl);
    }

    @Override
    public boolean renew(String id, long session, Duration ttl) {
      before("membership.renew");
      return d.renew(id, session, ttl);
    }

    @Override
    public boolean update(String id, long session, MemberMeta meta) {
      before("membership.update");
      return d.update(id, session, meta);
    }

    @Override
    public void deregister(String id, long session) {
      before("membership.deregister");
      d.deregister(id, session);
    }

    @Override
    public boolean removeIfExpired(String id, long session) {
      before("membership.removeIfExpired");
      return d.removeIfExpired(id, session);
    }

    @Override
    public Map<String, MemberRecord> members() {
      before("membership.members");
      return d.members();
    }
  }

  private final class FOwnership implements Ownership {
    private final Ownership d;

    FOwnership(Ownership d) {
      this.d = d;
    }

    @Override
    public String pool() {
      return d.pool();
    }

    @Override
    public OptionalLong claim(String unit, String member, long session) {
      before("ownership.claim");
      return d.claim(unit, member, session);
    }

    @Override
    public Map<String, Long> claimAll(List<String> units, String member, long session) {
      before("ownership.claimAll");
      return d.claimAll(units, member, session);
    }

    @Override
    public boolean release(String unit, String member, long token) {
      before("ownership.release");
      return d.release(unit, member, token);
    }

    @Override
    public Set<String> releaseAll(Map<String, Long> tokens, String member) {
      before("ownership.releaseAll");
      return d.releaseAll(tokens, member);
    }

    @Override
    public boolean release(String unit, String member, long token, Duration hold) {
      before("ownership.releaseWithHold");
      return d.release(unit, member, token, hold);
    }

    @Override
    public Map<String, UnitHold> holds() {
      before("ownership.holds");
      return d.holds();
    }

    @Override
    public Map<String, UnitOwner> ownersOf(Collection<String> units) {
      before("ownership.ownersOf");
      return d.ownersOf(units);
    }

    @Override
    public Map<String, UnitOwner> owners() {
      before("ownership.owners");
      return d.owners();
    }

    @Override
    public boolean validToken(String unit, String member, long session, long token) {
      before("ownership.validToken");
      return d.validToken(unit, member, session, token);
    }
  }

  private final class FTables implements Tables {
    private final Tables d;

    FTables(Tables d) {
      this.d = d;
    }

    @Override
    public long publish(Lease lease, String tableKey, String pool, Map<String, String> fields) {
      before("tables.publish");
      return d.publish(lease, tableKey, pool, fields);
    }

    @Override
    public long epoch(String tableKey) {
      before("tables.epoch");
      return d.epoch(tableKey);
    }

    @Override
    public Map<String, String> read(String tableKey) {
      before("tables.read");
      return d.read(tableKey);
    }

    @Override
    public Optional<String> read(String tableKey, String member) {
      before("tables.readMember");
      return d.read(tableKey, member);
    }

    @Override
    public Map<String, List<String>> units(String tableKey) {
      before("tables.units");
      return d.units(tableKey);
    }

    @Override
    public List<String> units(String tableKey, String member) {
      before("tables.unitsOfMember");
      return d.units(tableKey, member);
    }
  }

  private final class FNotifications implements Notifications {
    private final Notifications d;

    FNotifications(Notifications d) {
      this.d = d;
    }

    @Override
    public Subscription subscribe(Topic topic, Consumer<String> listener) {
      return d.subscribe(topic, listener); // in every mode: pub/sub is only a hint
    }

    @Override
    public void publish(Topic topic, String message) {
      before("notifications.publish");
      d.publish(topic, message);
    }
  }

  private final class FSeedKeys implements SeedKeys {
    private final SeedKeys d;

    FSeedKeys(SeedKeys d) {
      this.d = d;
    }

    @Override
    public List<String> list(String key) {
      before("seedKeys.list");
      return d.list(key);
    }

    @Override
    public boolean addToList(String key, String value) {
      before("seedKeys.addToList");
      return d.addToList(key, value);
    }

    @Override
    public boolean removeFromList(String key, String value) {
      before("seedKeys.removeFromList");
      return d.removeFromList(key, value);
    }

    @Override
    public void replaceList(String key, List<String> values) {
      before("seedKeys.replaceList");
      d.replaceList(key, values);
    }

    @Override
    public Map<String, String> hash(String key) {
      before("seedKeys.hash");
      return d.hash(key);
    }

    @Override
    public String hashField(String key, String field) {
      before("seedKeys.hashField");
      return d.hashField(key, field);
    }
  }

  private final class FRouteWeights implements RouteWeights {
    private final RouteWeights d;

    FRouteWeights(RouteWeights d) {
      this.d = d;
    }

    @Override
    public String pool() {
      return d.pool();
    }

    @Override
    public long set(Map<String, Integer> weights) {
      before("routeWeights.set");
      return d.set(weights);
    }

    @Override
    public SortedMap<String, Integer> read() {
      before("routeWeights.read");
      return d.read();
    }
  }
}
