package io.allot.server.distributor;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Changes;
import io.allot.core.assign.SeedLayout;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import io.allot.server.config.HostPort;
import io.allot.server.ping.Pinger;
import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.MemberRecord;
import io.allot.store.Store;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The distributor of one group (one services list): elects itself leader, pings the members,
 * computes the table and publishes it when it changed. {@link #cycle()} runs one round; the
 * caller schedules it. Not thread-safe: run cycles one at a time.
 */
public final class GroupDistributor {
  private static final Logger log = LoggerFactory.getLogger(GroupDistributor.class);

  private final Store store;
  private final Pinger pinger;
  private final Assigner assigner;
  private final DistributorSettings settings;
  private final String group;
  private final String holder;
  private final String leaseName;
  private final BiConsumer<String, Published> onPublish;

  private Lease lease;
  private Map<String, String> lastPublished;
  private Table previous = Table.EMPTY;
  // the inputs and result of the last computation, so an unchanged fleet costs no recomputation
  private Set<Member> memoMembers;
  private Set<String> memoUnits;
  private Table memoPrevious;
  private Table memoTable;
  private final Map<String, Integer> failures = new HashMap<>();
  private final Set<String> down = new HashSet<>();
  private final Set<String> warned = new HashSet<>();
  private boolean warnedNoUnits;

  // metrics
  private final AtomicInteger upGauge = new AtomicInteger();
  private final AtomicInteger downGauge = new AtomicInteger();
  private final AtomicInteger unitsGauge = new AtomicInteger();
  private final AtomicInteger unassignedGauge = new AtomicInteger();
  private final AtomicInteger leaderGauge = new AtomicInteger();
  private final Counter tableChanges;
  private final Counter badData;
  private final Counter storeErrors;
  private final Timer cycleTimer;
  private final Timer pingTimer;
  private final Timer computeTimer;
  private final Timer publishTimer;
  private final DistributionSummary pingFailures;

  /** A published table. */
  public record Published(long epoch, Table table, Set<String> down) {}

  public GroupDistributor(
      Store store,
      Pinger pinger,
      Assigner assigner,
      DistributorSettings settings,
      String group,
      String holder,
      MeterRegistry registry,
      BiConsumer<String, Published> onPublish) {
    this.store = store;
    this.pinger = pinger;
    this.assigner = assigner;
    this.settings = settings;
    this.group = group;
    this.holder = holder;
    this.leaseName = Store.tableLeaseName(settings.distributionNamespace(), group);
    this.onPublish = onPublish;
    Gauge.builder("allot_members", upGauge, AtomicInteger::get).tag("group", group).tag("state", "up").description("members answering pings").register(registry);
    Gauge.builder("allot_members", downGauge, AtomicInteger::get).tag("group", group).tag("state", "down").description("members marked down").register(registry);
    Gauge.builder("allot_units", unitsGauge, AtomicInteger::get).tag("group", group).description("work units").register(registry);
    Gauge.builder("allot_units_unassigned", unassignedGauge, AtomicInteger::get).tag("group", group).description("units no member could take (capacity)").register(registry);
    Gauge.builder("allot_leader", leaderGauge, AtomicInteger::get).tag("group", group).description("1 while this process leads the group").register(registry);
    tableChanges = Counter.builder("allot_table_changes").tag("group", group).description("tables published").register(registry);
    badData = Counter.builder("allot_bad_data").tag("group", group).description("invalid entries found in the store (skipped)").register(registry);
    storeErrors = Counter.builder("allot_store_errors").tag("group", group).description("cycles that failed on the store").register(registry);
    cycleTimer = Timer.builder("allot_cycle").tag("group", group).description("one distributor cycle").register(registry);
    pingTimer = Timer.builder("allot_ping").tag("group", group).publishPercentileHistogram().description("ping latency").register(registry);
    computeTimer = Timer.builder("allot_compute").tag("group", group).description("table computation").register(registry);
    publishTimer = Timer.builder("allot_publish").tag("group", group).description("table write").register(registry);
    pingFailures = DistributionSummary.builder("allot_ping_failures").tag("group", group).description("failed pings per cycle").register(registry);
  }

  public String group() {
    return group;
  }

  public boolean isLeader() {
    return lease != null;
  }

  /** The lease held, if leader. */
  public Lease lease() {
    return lease;
  }

  /** One round. Never throws: store failures are logged and counted, and the next cycle retries. */
  public void cycle() {
    long t0 = System.nanoTime();
    try {
      if (!lead()) {
        return;
      }
      round();
    } catch (FencedException e) {
      log.warn("group={} lost leadership while publishing: {}", group, e.getMessage());
      stepDown();
    } catch (RuntimeException e) {
      storeErrors.increment();
      log.warn("group={} cycle failed: {}", group, e.toString());
    } finally {
      cycleTimer.record(Duration.ofNanos(System.nanoTime() - t0));
    }
  }

  private boolean lead() {
    if (lease != null) {
      boolean renewed;
      try {
        renewed = store.renew(lease, settings.leaderTtl());
      } catch (RuntimeException e) {
        // cannot tell whether the lease is still ours: act as if not (a standby may take over)
        log.warn("group={} cannot renew leadership ({}); stepping down", group, e.toString());
        stepDown();
        throw e;
      }
      if (!renewed) {
        log.warn("group={} leadership lost (lease expired or taken over)", group);
        stepDown();
        return false;
      }
      return true;
    }
    lease = store.tryAcquire(leaseName, holder, settings.leaderTtl()).orElse(null);
    if (lease != null) {
      leaderGauge.set(1);
      lastPublished = null; // first act: full recompute and compare with what the store holds
      memoTable = null;
      previous = readPublished();
      log.info("group={} leader token={} holder={}", group, lease.token(), holder);
    }
    return lease != null;
  }

  private Table readPublished() {
    Map<String, String> hash = store.hash(settings.distributionNamespace());
    Set<String> members = new HashSet<>(store.list(group));
    Map<String, String> mine = new LinkedHashMap<>();
    hash.forEach((k, v) -> {
      if (members.contains(k)) {
        mine.put(k, v);
      }
    });
    return SeedLayout.parseHash(mine, msg -> log.warn("group={} published table: {}", group, msg));
  }

  private void stepDown() {
    lease = null;
    leaderGauge.set(0);
    lastPublished = null;
  }

  private void round() {
    // members
    List<String> raw = store.list(group);
    LinkedHashSet<String> members = new LinkedHashSet<>();
    for (String m : raw) {
      try {
        HostPort.parse(m);
      } catch (IllegalArgumentException e) {
        badData("member", m, group + ": " + e.getMessage());
        continue;
      }
      if (!members.add(m)) {
        badData("duplicate member", m, group + ": member '" + m + "' is listed twice; counted once");
      }
    }
    // units
    List<String> rawUnits = store.list(settings.workunitsNamespace());
    LinkedHashSet<String> units = new LinkedHashSet<>();
    for (String u : rawUnits) {
      if (u.isEmpty()) {
        badData("unit", u, settings.workunitsNamespace() + ": empty unit name skipped");
      } else if (u.indexOf(',') >= 0) {
        badData("unit", u, settings.workunitsNamespace() + ": unit '" + u + "' contains ',', which the distribution hash cannot store; skipped");
      } else if (!units.add(u)) {
        badData("duplicate unit", u, settings.workunitsNamespace() + ": unit '" + u + "' is listed twice; counted once");
      }
    }
    unitsGauge.set(units.size());

    // registered members (worker SDK): affinity, capacity and a lease in store time
    Map<String, MemberRecord> records = store.members(group);
    long now = records.isEmpty() ? 0 : store.timeMillis();
    nextLeaseExpiry = Long.MAX_VALUE;
    Set<String> leaseExpired = new HashSet<>();
    for (MemberRecord r : records.values()) {
      if (!members.contains(r.id())) {
        continue;
      }
      if (r.liveAt(now)) {
        nextLeaseExpiry = Math.min(nextLeaseExpiry, r.leaseUntilMillis() - now);
      } else {
        leaseExpired.add(r.id());
      }
    }

    // ping everyone in parallel
    long p0 = System.nanoTime();
    List<CompletableFuture<Pinger.Result>> pings = new ArrayList<>(members.size());
    for (String m : members) {
      pings.add(pinger.ping(m));
    }
    int failed = 0;
    for (CompletableFuture<Pinger.Result> f : pings) {
      Pinger.Result r = f.join();
      pingTimer.record(Duration.ofNanos(r.nanos()));
      if (r.ok()) {
        failures.remove(r.address());
        if (down.remove(r.address())) {
          log.info("group={} member={} up", group, r.address());
        }
      } else {
        failed++;
        int n = failures.merge(r.address(), 1, Integer::sum);
        if (n >= settings.downAfter() && down.add(r.address())) {
          log.warn("group={} member={} down after {} failed pings: {}", group, r.address(), n, r.error());
        } else if (n < settings.downAfter()) {
          log.debug("group={} member={} ping failed ({}/{}): {}", group, r.address(), n, settings.downAfter(), r.error());
        }
      }
    }
    pingFailures.record(failed);
    failures.keySet().retainAll(members);
    down.retainAll(members);
    for (String m : leaseExpired) {
      if (down.add(m)) {
        log.warn("group={} member={} down: its lease expired", group, m);
      }
    }
    // a member never seen answering is not live yet
    List<Member> live = new ArrayList<>();
    for (String m : members) {
      boolean ok = !down.contains(m) && (!failures.containsKey(m) || wasLive(m)); // within K failures: keep its units
      if (ok) {
        MemberRecord r = records.get(m);
        live.add(r == null ? Member.of(m) : Member.of(m, r.affinity(), r.capacity()));
      }
    }
    if (settings.removeDead()) {
      for (String m : new ArrayList<>(down)) {
        store.removeFromList(group, m);
        members.remove(m);
        down.remove(m);
        failures.remove(m);
        log.warn("group={} member={} removed from {} (-remove-dead)", group, m, group);
      }
    }
    upGauge.set(live.size());
    downGauge.set(down.size());
    recordPingTime(System.nanoTime() - p0);

    if (units.isEmpty()) {
      if (!warnedNoUnits) {
        log.warn("group={} no work units in '{}': keeping the table as it is", group, settings.workunitsNamespace());
        warnedNoUnits = true;
      }
      return;
    }
    warnedNoUnits = false;

    if (live.isEmpty() && previous.assignedCount() == 0 && lastPublished != null) {
      return; // nobody has answered yet and nothing runs: an empty table would say nothing new
    }
    if (live.isEmpty() && previous.assignedCount() == 0 && !members.isEmpty() && failures.keySet().containsAll(members) && down.isEmpty()) {
      return; // first pings still failing (cold start): wait for K failures before publishing "nobody"
    }
    long c0 = System.nanoTime();
    Set<Member> liveSet = new HashSet<>(live);
    Table table;
    if (memoTable != null && (memoPrevious == previous || !assigner.usesPrevious()) && liveSet.equals(memoMembers)
        && units.equals(memoUnits)) {
      table = memoTable; // same inputs as the last computation: the table is a function of them
    } else {
      if (memoTable != null && (!assigner.usesPrevious() || memoTable == previous)) {
        // incremental: the strategy recomputes only what the changes can affect (same result as a full run)
        table = assigner.update(memoTable, live, units, Changes.between(memoMembers, liveSet, memoUnits, units));
      } else {
        table = assigner.assign(live, units, previous);
      }
      memoMembers = liveSet;
      memoUnits = units;
      memoPrevious = previous;
      memoTable = table;
    }
    computeTimer.record(Duration.ofNanos(System.nanoTime() - c0));
    unassignedGauge.set(table.unassigned().size());
    Map<String, String> fields = new LinkedHashMap<>(table.toDistributionHash());
    for (String m : members) {
      fields.putIfAbsent(m, ""); // down (or not yet answering) members: told explicitly they have nothing
    }
    if (fields.equals(lastPublished)) {
      return;
    }
    long w0 = System.nanoTime();
    long epoch = store.publish(lease, settings.distributionNamespace(), group, fields);
    publishTimer.record(Duration.ofNanos(System.nanoTime() - w0));
    lastPublished = fields;
    previous = table;
    tableChanges.increment();
    if (!table.unassigned().isEmpty()) {
      log.warn("group={} {} units could not be placed (capacity exhausted)", group, table.unassigned().size());
    }
    log.info("group={} published epoch={} members={} up={} down={} units={}", group, epoch, members.size(), live.size(), down.size(), units.size());
    if (onPublish != null) {
      onPublish.accept(group, new Published(epoch, table, Set.copyOf(down)));
    }
  }

  private long nextLeaseExpiry = Long.MAX_VALUE;

  /**
   * Milliseconds until the next registered member's lease runs out (store time), or {@link
   * Long#MAX_VALUE}: the caller runs a round right then, so a dead worker's units move within its
   * lease TTL instead of waiting for the next poll.
   */
  public long millisToNextLeaseExpiry() {
    return lease == null ? Long.MAX_VALUE : nextLeaseExpiry;
  }

  private boolean wasLive(String m) {
    return previous.members().contains(m);
  }

  private long lastPingNanos;

  private void recordPingTime(long nanos) {
    lastPingNanos = nanos;
  }

  /** Duration of the last ping round (all members in parallel). */
  public long lastPingRoundNanos() {
    return lastPingNanos;
  }

  private void badData(String kind, String value, String message) {
    badData.increment();
    if (warned.add(kind + "\u0000" + value)) {
      log.warn("group={} bad data: {}", group, message);
    }
  }

  /** Gives up leadership (on shutdown). */
  public void release() {
    if (lease != null) {
      try {
        store.release(lease);
        log.info("group={} released leadership", group);
      } catch (RuntimeException e) {
        log.warn("group={} could not release leadership: {}", group, e.toString());
      }
      stepDown();
    }
  }
}
