package io.allot.sim;

import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The wire between the callers (members, the distributor) and the {@link SimStore}. A store call sent at {@code t} is
 * applied at the store at {@code t + d1} and answered at {@code t + d1 + d2}; either half may be lost, and a call
 * without an answer after the call timeout fails with {@link StoreUnavailableException} while the request may or may
 * not have been applied (the ambiguity real clients live with). Each caller has one connection: its requests are
 * applied, and its answers arrive, in the order they were sent (as on a Redis connection; PostgreSQL's
 * {@code statement_timeout} ends a statement the client gave up on). A request that reaches a restarting store is
 * lost; a caller whose link is down loses what it sends and what comes back. Announcements (the store's pub/sub) go
 * to the subscribers with a delay, and may be lost: they are hints, as in the real stores.
 *
 * <p>Delays: mostly below 3 ms, 8 % up to 100 ms, {@link SimConfig#slowRate()} (2 %) up to 1.5 s (beyond the call
 * timeout). In quiet mode
 * (the end of a run) nothing is lost and every delay is below 3 ms.
 *
 * <p>Not thread-safe (confined to the simulation's thread).
 */
public final class Network {

  /** Who calls the store. */
  public interface Caller extends Sim.Actor {
    /** For the trace, e.g. {@code m3#2}. */
    String name();

    /** True while this caller's link to the store is down. */
    boolean linkDown();
  }

  /** Gets the store's announcements; each callback is an event of the subscriber (held back while it is paused). */
  public interface Subscriber extends Caller {
    /** The distribution table was published. */
    default void onTable() {}

    /** {@code unit} was released. */
    default void onRelease(String unit) {}

    /** Member {@code id} registered, changed or left. */
    default void onMembers(String id) {}
  }

  /** The answer to a call: a value, or the error (the store's exception, or unavailable). */
  public interface Answer<T> {
    void accept(T value, RuntimeException error);
  }

  private final Sim sim;
  private final SimStore store;
  private final Trace trace;
  private final long timeoutNanos;
  private final double lossRate;
  private final double slowRate;
  /** In subscription order. */
  private final List<Subscriber> subscribers = new ArrayList<>();
  /** Caller -> {when its last request is applied, when its last answer arrives}: one connection each, in order. */
  private final Map<Caller, long[]> lanes = new HashMap<>();
  private boolean quiet;
  private long calls;

  public Network(Sim sim, SimStore store, Trace trace, SimConfig config) {
    this.sim = sim;
    this.store = store;
    this.trace = trace;
    this.timeoutNanos = config.callTimeout().toNanos();
    this.lossRate = config.lossRate();
    this.slowRate = config.slowRate();
  }

  /** From now on nothing is lost and delays are short (the faults have stopped). */
  public void quiet() {
    quiet = true;
  }

  /** Calls made so far. */
  public long calls() {
    return calls;
  }

  /**
   * Sends {@code op} to the store for {@code caller}; {@code answer} runs as an event of the caller, with the result
   * or the error.
   *
   * @param what for the trace
   * @param show the result for the trace (tokens relative to the store's origin, see {@link SimStore#rel}); null:
   *             "ok"
   */
  public <T> void call(Caller caller, String what, Function<Store, T> op, Function<? super T, String> show,
      Answer<T> answer) {
    calls++;
    long[] lane = lanes.computeIfAbsent(caller, c -> new long[] {Long.MIN_VALUE, Long.MIN_VALUE});
    long applyAt = Math.max(sim.now() + delay(), lane[0] + 1);
    long answerAt = Math.max(applyAt + delay(), lane[1] + 1);
    boolean requestLost = caller.linkDown() || lost();
    boolean answerLost = lost();
    boolean[] done = new boolean[1];
    Sim.Event timeout = sim.after(timeoutNanos, caller, () -> {
      if (!done[0]) {
        done[0] = true;
        trace.add(caller.name(), what + " timed out");
        sim.count("call timed out");
        answer.accept(null, new StoreUnavailableException(what + ": no answer within the call timeout"));
      }
    });
    if (requestLost) {
      return;
    }
    lane[0] = applyAt;
    boolean answered = !answerLost && answerAt - sim.now() < timeoutNanos;
    if (answered) {
      lane[1] = answerAt;
    }
    sim.at(applyAt, null, () -> {
      if (!store.up()) {
        trace.add("store", "down, lost " + what + " from " + caller.name());
        return;
      }
      T value = null;
      RuntimeException error = null;
      try {
        value = op.apply(store.store());
      } catch (RuntimeException e) {
        error = e;
      }
      trace.add("store", what + " from " + caller.name() + " -> " + (error != null ? shortName(error)
          : show == null ? "ok" : show.apply(value)));
      if (!answered) {
        return;
      }
      T v = value;
      RuntimeException err = error;
      sim.at(answerAt, caller, () -> {
        if (done[0] || caller.linkDown()) {
          return; // a lost answer: the timeout reports it
        }
        done[0] = true;
        timeout.cancel();
        answer.accept(v, err);
      });
    });
  }

  /** Adds a subscriber (until it is gone). */
  public void subscribe(Subscriber s) {
    subscribers.add(s);
  }

  /** Announces a publication of the table. */
  public void announceTable() {
    fanOut(Subscriber::onTable);
  }

  /** Announces the release of {@code unit}. */
  public void announceRelease(String unit) {
    fanOut(s -> s.onRelease(unit));
  }

  /**
   * Announces a push handoff's grant ({@link io.allot.store.Handoff#grantMessage}) on the releases channel, as
   * {@link #announceRelease}; at the loss rate, a second copy follows later (a late, reordered duplicate: what the
   * member's stale-grant guard must ignore).
   */
  public void announceGrant(String message) {
    fanOut(s -> s.onRelease(message), 0);
    if (!quiet && sim.chance(lossRate)) {
      sim.count("grant announced twice");
      fanOut(s -> s.onRelease(message), sim.uniform(1_000_000L, 1_000_000_000L));
    }
  }

  /** Announces a change of member {@code id}. */
  public void announceMembers(String id) {
    fanOut(s -> s.onMembers(id));
  }

  private void fanOut(java.util.function.Consumer<Subscriber> deliver) {
    fanOut(deliver, 0);
  }

  private void fanOut(java.util.function.Consumer<Subscriber> deliver, long extraNanos) {
    subscribers.removeIf(Sim.Actor::gone);
    for (Subscriber s : subscribers) {
      if (s.linkDown() || lost()) {
        continue;
      }
      sim.after(delay() + extraNanos, s, () -> {
        if (!s.linkDown()) {
          deliver.accept(s);
        }
      });
    }
  }

  private boolean lost() {
    return !quiet && sim.chance(lossRate);
  }

  private long delay() {
    double r = sim.random().nextDouble();
    if (quiet || r < 0.92 - slowRate) {
      return sim.uniform(100_000L, 3_000_000L);
    }
    if (r < 1 - slowRate) {
      return sim.uniform(3_000_000L, 100_000_000L);
    }
    return sim.uniform(100_000_000L, 1_500_000_000L);
  }

  private static String shortName(RuntimeException e) {
    return e.getClass().getSimpleName();
  }
}
