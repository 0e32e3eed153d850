package io.allot.store.metrics;

import io.allot.store.FencedException;
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
import io.allot.store.spi.Proxies;
import io.allot.store.tasks.TaskSpecs;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A store decorator that meters every call of every role: {@code allot.store.round.trip} (a timer, Prometheus
 * {@code allot_store_round_trip_seconds}) tagged {@code op} ({@code "ownership.claimAll"}) and {@code outcome}
 * ({@code ok}, {@code unavailable}, {@code fenced}, {@code error}), {@code allot.store.unavailable} (calls that found
 * the store unreachable or timed out) and {@code allot.store.reconnects} (a call that succeeded after calls had found
 * the store unreachable: the connection came back). Open the store, then {@code StoreMeters.wrap(store, registry)}.
 *
 * <p>Each role is forwarded by a dynamic proxy of the role's interface, so a method a role gains later is metered too.
 * Closing the wrapper closes the store. Thread-safe: the timers are cached in a concurrent map, the
 * "was unavailable" flag is an atomic.
 */
public final class StoreMeters extends AbstractStore {
  /** The timer of one call. */
  public static final String ROUND_TRIP = "allot.store.round.trip";
  /** The counter of calls that found the store unavailable. */
  public static final String UNAVAILABLE = "allot.store.unavailable";
  /** The counter of recoveries after unavailability. */
  public static final String RECONNECTS = "allot.store.reconnects";

  private final Store delegate;
  private final Meters meters;

  private StoreMeters(Store delegate, Meters meters) {
    super(delegate.safety(),
        meters.wrap(StoreClock.class, "clock", delegate.clock()),
        meters.wrap(Leadership.class, "leadership", delegate.leadership()),
        meters.wrap(Tables.class, "tables", delegate.tables()),
        meters.wrap(Notifications.class, "notifications", delegate.notifications()),
        meters.wrap(SeedKeys.class, "seedKeys", delegate.seedKeys()));
    this.delegate = delegate;
    this.meters = meters;
  }

  /**
   * {@code store} with every call metered into {@code registry}; the meters are registered now (the
   * {@code ok} timer of each operation when it is first called).
   */
  public static Store wrap(Store store, MeterRegistry registry) {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(registry, "registry");
    return new StoreMeters(store, new Meters(registry));
  }

  /** The store metered. */
  public Store delegate() {
    return delegate;
  }

  @Override
  public String describe() {
    return delegate.describe();
  }

  @Override
  public Membership membership(String pool) {
    return meters.wrap(Membership.class, "membership", delegate.membership(pool));
  }

  @Override
  public Ownership ownership(String pool) {
    return meters.wrap(Ownership.class, "ownership", delegate.ownership(pool));
  }

  @Override
  public JobQueue jobQueue(String name) {
    return meters.wrap(JobQueue.class, "jobQueue", delegate.jobQueue(name));
  }

  @Override
  public TaskSpecs taskSpecs(String pool) {
    return meters.wrap(TaskSpecs.class, "taskSpecs", delegate.taskSpecs(pool));
  }

  @Override
  public RouteWeights routeWeights(String pool) {
    return meters.wrap(RouteWeights.class, "routeWeights", delegate.routeWeights(pool));
  }

  @Override
  public io.allot.store.jobs.JobQueues jobQueues() {
    return meters.wrap(io.allot.store.jobs.JobQueues.class, "jobQueues", delegate.jobQueues());
  }

  @Override
  public io.allot.store.events.Events events() {
    return meters.wrap(io.allot.store.events.Events.class, "events", delegate.events());
  }

  @Override
  public void close() {
    delegate.close();
  }

  /** The meters and the proxies' handler. Thread-safe (concurrent map, atomic flag). */
  private static final class Meters {
    private final MeterRegistry registry;
    private final Counter unavailable;
    private final Counter reconnects;
    /** Each operation's timers by method (no string built per call); a concurrent map of thread-safe values. */
    private final ConcurrentMap<Method, OpTimers> timers = new ConcurrentHashMap<>();
    /** Set when a call found the store unavailable, cleared (and counted) by the next call that succeeds. */
    private final AtomicBoolean down = new AtomicBoolean();

    Meters(MeterRegistry registry) {
      this.registry = registry;
      this.unavailable = Counter.builder(UNAVAILABLE).description("store calls that found it unreachable or timed out")
          .register(registry);
      this.reconnects = Counter.builder(RECONNECTS)
          .description("a store call succeeded after calls had found the store unreachable").register(registry);
    }

    <T> T wrap(Class<T> role, String roleName, T target) {
      Objects.requireNonNull(target, roleName);
      return role.cast(Proxy.newProxyInstance(role.getClassLoader(), new Class<?>[] {role},
          (proxy, method, args) -> call(roleName, target, method, args)));
    }

    private Object call(String roleName, Object target, Method method, Object[] args) throws Throwable {
      if (method.getDeclaringClass() == Object.class) {
        return Proxies.invoke(target, method, args);
      }
      OpTimers op = timers.get(method);
      if (op == null) {
        op = timers.computeIfAbsent(method, m -> new OpTimers(registry, roleName + "." + m.getName()));
      }
      long start = System.nanoTime();
      int outcome = OpTimers.OK;
      try {
        Object result = Proxies.invoke(target, method, args);
        if (down.get() && down.compareAndSet(true, false)) {
          reconnects.increment();
        }
        return result;
      } catch (StoreUnavailableException e) {
        outcome = OpTimers.UNAVAILABLE;
        unavailable.increment();
        down.set(true);
        throw e;
      } catch (FencedException e) {
        outcome = OpTimers.FENCED;
        throw e;
      } catch (Throwable e) {
        outcome = OpTimers.ERROR;
        throw e;
      } finally {
        op.timer(outcome).record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
      }
    }
  }

  /**
   * One operation's timers by outcome, the {@code ok} one made at once, the others at their first use.
   * Thread-safe: an atomic array (Micrometer returns the same timer if two threads register one).
   */
  private static final class OpTimers {
    static final int OK = 0;
    static final int UNAVAILABLE = 1;
    static final int FENCED = 2;
    static final int ERROR = 3;
    private static final String[] OUTCOMES = {"ok", "unavailable", "fenced", "error"};

    private final MeterRegistry registry;
    private final String op;
    private final java.util.concurrent.atomic.AtomicReferenceArray<Timer> byOutcome =
        new java.util.concurrent.atomic.AtomicReferenceArray<>(OUTCOMES.length);

    OpTimers(MeterRegistry registry, String op) {
      this.registry = registry;
      this.op = op;
      timer(OK);
    }

    Timer timer(int outcome) {
      Timer t = byOutcome.get(outcome);
      if (t == null) {
        t = Timer.builder(ROUND_TRIP).tag("op", op).tag("outcome", OUTCOMES[outcome])
            .description("one store call, by operation and outcome").register(registry);
        byOutcome.set(outcome, t);
      }
      return t;
    }
  }
}
