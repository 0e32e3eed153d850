package io.allot.sim;

import io.allot.store.Handoff;
import io.allot.store.Lease;
import io.allot.store.Leadership;
import io.allot.store.MemberConflictException;
import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.Membership;
import io.allot.store.Notifications;
import io.allot.store.Ownership;
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
import io.allot.store.tasks.TaskSpecs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The store as one member process sees it: the {@link io.allot.store.Store} handed to its real {@code Divider}. Every
 * call the SDK makes goes over the process's connection of the {@link Network} (delays, losses, timeouts, the store
 * down) and blocks the calling SDK thread until its answer, or the call timeout, comes ({@link Fibers#await}): the
 * answer is an event of the process, so a paused process sees it only when it resumes. The store's announcements
 * (a table published, a unit released) come from the network as events of the process; the SDK's handlers run on the
 * simulator's kernel, which is how the real stores call them (on a thread of theirs; they never block).
 *
 * <p>Also the checker's eyes at the wire: every grant goes to the {@link Ledger} (invariant 2 at the store), and a
 * claim sent without a valid lease is invariant 4. The clock read while waiting out a registration conflict is an
 * instant oracle read (a simplification), and so are subscriptions.
 *
 * <p>Not thread-safe: used by whoever holds the simulator's turn.
 */
final class SimLink implements Store, Membership, Ownership, Tables, Notifications {
  private final Sim sim;
  private final SimProcess proc;
  private final Network net;
  private final SimStore store;
  private final Fibers fibers;
  private final Ledger ledger;
  private final Trace trace;
  /** Subscribers to the table's changes and to releases, in subscription order. */
  private final Set<Consumer<String>> onTable = new LinkedHashSet<>();
  private final Set<Consumer<String>> onRelease = new LinkedHashSet<>();
  /** The last session the store registered for this process (0: none). */
  private long lastSession;

  SimLink(Sim sim, SimProcess proc, Network net, SimStore store, Fibers fibers, Ledger ledger, Trace trace) {
    this.sim = sim;
    this.proc = proc;
    this.net = net;
    this.store = store;
    this.fibers = fibers;
    this.ledger = ledger;
    this.trace = trace;
  }

  long lastSession() {
    return lastSession;
  }

  /** The store announced a publication of the table. */
  void tableAnnounced() {
    List.copyOf(onTable).forEach(c -> c.accept(""));
  }

  /** The store announced the release of {@code unit}. */
  void releaseAnnounced(String unit) {
    List.copyOf(onRelease).forEach(c -> c.accept(unit));
  }

  /** A blocking call over the network, on the calling SDK thread. */
  @SuppressWarnings("unchecked")
  <T> T call(String what, Function<Store, T> op, Function<? super T, String> show) {
    Fibers.Call c = new Fibers.Call();
    net.call(proc, what, op, show, (v, err) -> fibers.answer(c, v, err));
    fibers.await(c);
    if (c.error != null) {
      throw c.error;
    }
    return (T) c.value;
  }

  // ---- Store

  @Override
  public String describe() {
    return "the simulated store, over the network of " + proc.name();
  }

  @Override
  public Safety safety() {
    return store.store().safety();
  }

  @Override
  public StoreClock clock() {
    return () -> store.store().clock().timeMillis();
  }

  @Override
  public Membership membership(String pool) {
    return this;
  }

  @Override
  public Ownership ownership(String pool) {
    return this;
  }

  @Override
  public Tables tables() {
    return this;
  }

  @Override
  public Notifications notifications() {
    return this;
  }

  @Override
  public Leadership leadership() {
    throw unused();
  }

  @Override
  public SeedKeys seedKeys() {
    throw unused();
  }

  @Override
  public JobQueue jobQueue(String name) {
    throw unused();
  }

  @Override
  public io.allot.store.jobs.JobQueues jobQueues() {
    throw unused();
  }

  @Override
  public TaskSpecs taskSpecs(String pool) {
    throw unused();
  }

  @Override
  public io.allot.store.RouteWeights routeWeights(String pool) {
    throw unused();
  }

  @Override
  public io.allot.store.events.Events events() {
    throw unused();
  }

  @Override
  public void close() {}

  // ---- Membership

  @Override
  public String pool() {
    return SimProcess.POOL;
  }

  @Override
  public long register(String id, MemberMeta meta, Duration ttl) {
    long s;
    try {
      s = call("register", st -> {
        long session = st.membership(SimProcess.POOL).register(id, meta, ttl);
        net.announceMembers(id);
        return session;
      }, v -> "s=" + store.rel(v));
    } catch (MemberConflictException e) {
      sim.count("registration conflict");
      throw e;
    }
    lastSession = s;
    return s;
  }

  @Override
  public boolean renew(String id, long session, Duration ttl) {
    return call("renew s=" + store.rel(session), st -> st.membership(SimProcess.POOL).renew(id, session, ttl),
        String::valueOf);
  }

  @Override
  public boolean update(String id, long session, MemberMeta meta) {
    return call("update affinity=" + meta.affinity(), st -> {
      boolean ok = st.membership(SimProcess.POOL).update(id, session, meta);
      if (ok) {
        net.announceMembers(id);
      }
      return ok;
    }, String::valueOf);
  }

  @Override
  public void deregister(String id, long session) {
    call("deregister s=" + store.rel(session), st -> {
      st.membership(SimProcess.POOL).deregister(id, session);
      net.announceMembers(id);
      return null;
    }, null);
  }

  @Override
  public boolean removeIfExpired(String id, long session) {
    throw unused();
  }

  @Override
  public Map<String, MemberRecord> members() {
    throw unused();
  }

  // ---- Ownership

  @Override
  public OptionalLong claim(String unit, String member, long session) {
    throw unused();
  }

  @Override
  public Map<String, Long> claimAll(List<String> units, String member, long session) {
    if (!proc.leaseValid()) {
      throw ledger.fail(new SimViolation("4 valid-lease", proc.name() + " claims " + units + " with an invalid lease"));
    }
    proc.claimsSent(session);
    try {
      return claimAllCall(units, member, session);
    } catch (StoreUnavailableException e) {
      sim.count("claims in doubt");
      throw e;
    }
  }

  private Map<String, Long> claimAllCall(List<String> units, String member, long session) {
    return call("claimAll " + units, st -> {
      Map<String, Long> tokens = st.ownership(SimProcess.POOL).claimAll(units, member, session);
      tokens.forEach((u, t) -> {
        try {
          ledger.granted(u, session, t);
        } catch (SimViolation v) {
          // recorded: the run fails at the next check
        }
      });
      return tokens;
    }, this::showTokens);
  }

  @Override
  public boolean release(String unit, String member, long token) {
    return release(unit, member, token, Duration.ZERO);
  }

  @Override
  public boolean release(String unit, String member, long token, Duration hold) {
    if (Thread.currentThread().getName().contains("allot-worker-loop-")) {
      sim.count("release by the loop (give back, doubt)");
    }
    String what = "release " + unit + "#" + store.rel(token) + (hold.isZero() ? "" : " hold");
    return call(what, st -> {
      Ownership own = st.ownership(SimProcess.POOL);
      boolean ok = hold.isZero() ? own.release(unit, member, token) : own.release(unit, member, token, hold);
      if (ok) {
        net.announceRelease(unit);
      }
      return ok;
    }, String::valueOf);
  }

  @Override
  public Set<String> releaseAll(Map<String, Long> tokens, String member) {
    StringBuilder what = new StringBuilder("releaseAll {");
    tokens.forEach((u, t) -> what.append(what.length() > 12 ? ", " : "").append(u).append('#').append(store.rel(t)));
    return call(what.append('}').toString(), st -> {
      Set<String> released = st.ownership(SimProcess.POOL).releaseAll(tokens, member);
      released.forEach(net::announceRelease);
      return released;
    }, String::valueOf);
  }

  @Override
  public Set<String> handOffAll(List<Handoff> handoffs, String member) {
    StringBuilder what = new StringBuilder("handOffAll {");
    handoffs.forEach(h -> what.append(what.length() > 12 ? ", " : "").append(h.unit()).append('#')
        .append(store.rel(h.token())).append(h.to() == null ? "" : "->" + h.to()));
    return call(what.append('}').toString(), st -> {
      Ownership own = st.ownership(SimProcess.POOL);
      Set<String> released = own.handOffAll(handoffs, member);
      Map<String, UnitOwner> granted = own.ownersOf(released);
      for (String u : released) {
        UnitOwner g = granted.get(u);
        if (g == null) {
          net.announceRelease(u);
          continue;
        }
        sim.count("units handed off");
        try {
          ledger.granted(u, g.session(), g.token());
        } catch (SimViolation v) {
          // recorded: the run fails at the next check
        }
        net.announceGrant(Handoff.grantMessage(g));
      }
      return released;
    }, String::valueOf);
  }

  @Override
  public Map<String, UnitHold> holds() {
    throw unused();
  }

  @Override
  public Map<String, UnitOwner> owners() {
    sim.count("owned units checked");
    return call("owners", st -> st.ownership(SimProcess.POOL).owners(), this::showOwners);
  }

  @Override
  public Map<String, UnitOwner> ownersOf(Collection<String> units) {
    sim.count("claims in doubt checked");
    List<String> check = new ArrayList<>(units);
    Map<String, UnitOwner> owners = call("ownersOf " + check, st -> st.ownership(SimProcess.POOL).ownersOf(check),
        this::showOwners);
    proc.settlingDoubt(owners);
    return owners;
  }

  @Override
  public boolean validToken(String unit, String member, long session, long token) {
    throw unused();
  }

  // ---- Tables

  @Override
  public long publish(Lease lease, String tableKey, String pool, Map<String, String> fields) {
    throw unused();
  }

  @Override
  public long epoch(String tableKey) {
    throw unused();
  }

  @Override
  public Map<String, String> read(String tableKey) {
    throw unused();
  }

  @Override
  public Optional<String> read(String tableKey, String member) {
    return call("read target", st -> st.tables().read(tableKey, member), v -> "[" + v.orElse("") + "]");
  }

  @Override
  public Map<String, List<String>> units(String tableKey) {
    return call("read table", st -> st.tables().units(tableKey), v -> v.toString());
  }

  @Override
  public List<String> units(String tableKey, String member) {
    return call("read target", st -> st.tables().units(tableKey, member), v -> v.toString());
  }

  // ---- Notifications

  @Override
  public Subscription subscribe(Topic topic, Consumer<String> listener) {
    Set<Consumer<String>> to;
    if (topic.equals(Topic.table(SimProcess.TABLE))) {
      to = onTable;
    } else if (topic.equals(Topic.releases(SimProcess.POOL))) {
      to = onRelease;
    } else {
      throw unused();
    }
    to.add(listener);
    return () -> to.remove(listener);
  }

  @Override
  public void publish(Topic topic, String message) {
    throw unused();
  }

  private String showTokens(Map<String, Long> tokens) {
    StringBuilder b = new StringBuilder("{");
    tokens.forEach((u, t) -> b.append(b.length() > 1 ? ", " : "").append(u).append('#').append(store.rel(t)));
    return b.append('}').toString();
  }

  private String showOwners(Map<String, UnitOwner> owners) {
    StringBuilder b = new StringBuilder("{");
    owners.forEach((u, o) -> b.append(b.length() > 1 ? ", " : "").append(u).append('=').append(o.member())
        .append("/s").append(store.rel(o.session())).append('#').append(store.rel(o.token())));
    return b.append('}').toString();
  }

  private static UnsupportedOperationException unused() {
    return new UnsupportedOperationException("not a call the worker SDK makes");
  }
}
