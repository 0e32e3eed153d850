package io.allot.server.distributor;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Changes;
import io.allot.core.assign.SeedLayout;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import io.allot.server.config.HostPort;
import io.allot.server.ping.Pinger;
import io.allot.store.FencedException;
import io.allot.store.Leadership;
import io.allot.store.Lease;
import io.allot.store.MemberRecord;
import io.allot.store.Membership;
import io.allot.store.Ownership;
import io.allot.store.SeedKeys;
import io.allot.store.Store;
import io.allot.store.StoreClock;
import io.allot.store.Tables;
import io.allot.store.UnitHold;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
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
 * The distributor of one group (one services list): elects itself leader, judges the members (a member with a
 * member record by its lease, {@link LeaseJudge}; one without, an original-style service, by pings, {@link
 * PingJudge}), keeps the list consistent with the live registrations, computes the table with the held units placed
 * apart ({@link HoldPlacement}) and publishes it when it changed. {@link #cycle()} runs one round; the caller
 * schedules it, and runs one more at {@link #millisToNextChange()}. Not thread-safe: run cycles one at a time.
 */
public final class GroupDistributor {
  private static final Logger log = LoggerFactory.getLogger(GroupDistributor.class);

  // role views of the one store (cheap, thread-safe, valid until the store is closed)
  private final SeedKeys seedKeys;
  private final Membership membership;
  private final Ownership ownership;
  private final Tables tables;
  private final Leadership leadership;
  private final StoreClock clock;
  private final Pinger pinger;
  private final Assigner assigner;
  private final DistributorSettings settings;
  private final String group;
  private final String holder;
  private final String leaseName;
  private final BiConsumer<String, Published> onPublish;
  private final String storeName;
  private final LeaseJudge leaseJudge;
  private final Duration cleanupAge;

  // The state below is confined to the thread running cycle() and release() (one at a time, see the class
  // comment); only `lease` is also read by other threads (isLeader(), lease()), hence volatile.
  private volatile Lease lease;
  private Map<String, String> lastPublished;
  private Table previous = Table.EMPTY;
  // the inputs and result of the last computation, so an unchanged fleet costs no recomputation
  private Set<Member> memoMembers;
  private Set<String> memoUnits;
  private Table memoPrevious;
  private Table memoTable;
  private final PingJudge pings;
  /** Registered members in the list whose lease ended (for logging each transition once). */
  private final Set<String> leaseDown = new HashSet<>();
  private final Set<String> warned = new HashSet<>();
  private boolean warnedNoUnits;
  /** The highest epoch this distributor published, over all its terms (0: none yet). */
  private long lastEpoch;
  /** System.nanoTime() of the next lease end or hold end; Long.MAX_VALUE: none. */
  private long nextChangeAtNanos = Long.MAX_VALUE;
  private long lastPingNanos;

  // metrics
  private final AtomicInteger upGauge = new AtomicInteger();
  private final AtomicInteger downGauge = new AtomicInteger();
  private final AtomicInteger unitsGauge = new AtomicInteger();
  private final AtomicInteger unassignedGauge = new AtomicInteger();
  private final AtomicInteger leaderGauge = new AtomicInteger();
  private final Counter tableChanges;
  private final Counter badData;
  private final Counter storeErrors;
  private final Counter lostState;
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
    this.seedKeys = store.seedKeys();
    this.membership = store.membership(group);
    this.ownership = store.ownership(group);
    this.tables = store.tables();
    this.leadership = store.leadership();
    this.clock = store.clock();
    this.pinger = pinger;
    this.assigner = assigner;
    this.settings = settings;
    this.group = group;
    this.holder = holder;
    this.leaseName = Tables.leaseName(settings.distributionNamespace(), group);
    this.onPublish = onPublish;
    this.storeName = store.describe();
    this.leaseJudge = LeaseJudge.of(store.safety());
    this.cleanupAge = LeaseJudge.cleanupAge(store.safety());
    this.pings = new PingJudge(group, settings.downAfter());
    Gauge.builder("allot_members", upGauge, AtomicInteger::get).tag("group", group).tag("state", "up").description("members answering pings").register(registry);
    Gauge.builder("allot_members", downGauge, AtomicInteger::get).tag("group", group).tag("state", "down").description("members marked down").register(registry);
    Gauge.builder("allot_units", unitsGauge, AtomicInteger::get).tag("group", group).description("work units").register(registry);
    Gauge.builder("allot_units_unassigned", unassignedGauge, AtomicInteger::get).tag("group", group).description("units no member could take (capacity)").register(registry);
    Gauge.builder("allot_leader", leaderGauge, AtomicInteger::get).tag("group", group).description("1 while this process leads the group").register(registry);
    tableChanges = Counter.builder("allot_table_changes").tag("group", group).description("tables published").register(registry);
    badData = Counter.builder("allot_bad_data").tag("group", group).description("invalid entries found in the store (skipped)").register(registry);
    storeErrors = Counter.builder("allot_store_errors").tag("group", group).description("cycles that failed on the store").register(registry);
    lostState = Counter.builder("allot_store_lost_state").tag("group", group).description("publications whose epoch went backwards: the store lost state").register(registry);
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
        renewed = leadership.renew(lease, settings.leaderTtl());
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
    lease = leadership.tryAcquire(leaseName, holder, settings.leaderTtl()).orElse(null);
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
    Map<String, String> hash = tables.read(settings.distributionNamespace());
    Set<String> members = new HashSet<>(seedKeys.list(group));
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
    List<String> raw = seedKeys.list(group);
    long t0 = System.nanoTime(); // before the clock read: a wake-up computed from it is never late
    long now = clock.timeMillis(); // before the records: a lease seen ended had ended when they were read
    Map<String, MemberRecord> records = membership.members();
    LeaseJudge.Verdict leases = leaseJudge.judge(records.values(), now);
    LinkedHashSet<String> members = members(raw, records.keySet());
    addBackLiveRecords(leases.live(), members);
    removeStaleRecords(leases.stale(), members);
    LinkedHashSet<String> units = units();
    unitsGauge.set(units.size());

    // members with a record are judged by their lease only; the others (original-style services) by pings
    Set<String> pinged = new LinkedHashSet<>(members);
    pinged.removeAll(records.keySet());
    long p0 = System.nanoTime();
    pingAll(pinged);
    recordPingTime(System.nanoTime() - p0);
    Set<String> leaseDown = new HashSet<>(leases.down());
    leaseDown.retainAll(members);
    logLeaseTransitions(leaseDown);
    List<Member> live = new ArrayList<>();
    for (String m : members) {
      MemberRecord r = records.get(m);
      if (r == null ? pings.live(m, wasLive(m)) : leases.live().contains(m)) {
        live.add(r == null ? Member.of(m) : Member.of(m, r.affinity(), r.capacity()));
      }
    }
    if (settings.removeDead()) {
      removeDead(members);
    }
    Set<String> down = new HashSet<>(pings.down());
    down.addAll(leaseDown);
    upGauge.set(live.size());
    downGauge.set(down.size());

    // a unit released with a hold goes to another member while the hold lasts
    Map<String, UnitHold> holds = units.isEmpty() ? Map.of() : HoldPlacement.binding(ownership.holds(), units, live);
    scheduleNextChange(t0, now, leases, holds);

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
    if (live.isEmpty() && previous.assignedCount() == 0 && !members.isEmpty() && pinged.equals(members)
        && members.stream().allMatch(pings::failing) && pings.down().isEmpty()) {
      return; // first pings still failing (cold start): wait for K failures before publishing "nobody"
    }
    LinkedHashSet<String> free = new LinkedHashSet<>(units);
    free.removeAll(holds.keySet());
    long c0 = System.nanoTime();
    Table table = HoldPlacement.place(compute(live, free), live, holds.values());
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
    long epoch = tables.publish(lease, settings.distributionNamespace(), group, fields);
    publishTimer.record(Duration.ofNanos(System.nanoTime() - w0));
    lastPublished = fields;
    previous = table;
    tableChanges.increment();
    if (!table.unassigned().isEmpty()) {
      log.warn("group={} {} units could not be placed (capacity exhausted{})", group, table.unassigned().size(),
          holds.isEmpty() ? "" : ", or held units with no other member to take them");
    }
    log.info("group={} published epoch={} members={} up={} down={} units={}{}", group, epoch, members.size(), live.size(),
        down.size(), units.size(), holds.isEmpty() ? "" : " held=" + holds.size());
    checkEpoch(epoch);
    if (onPublish != null) {
      onPublish.accept(group, new Published(epoch, table, Set.copyOf(down)));
    }
  }

  /**
   * The services list, each entry once: an entry without a member record must be a {@code host:port} (it is
   * pinged); a registered one is taken as it is (its lease judges it).
   */
  private LinkedHashSet<String> members(List<String> raw, Set<String> registered) {
    LinkedHashSet<String> members = new LinkedHashSet<>();
    for (String m : raw) {
      if (!registered.contains(m)) {
        try {
          HostPort.parse(m);
        } catch (IllegalArgumentException e) {
          badData("member", m, group + ": " + e.getMessage());
          continue;
        }
      }
      if (!members.add(m)) {
        badData("duplicate member", m, group + ": member '" + m + "' is listed twice; counted once");
      }
    }
    return members;
  }

  /** The units list, each valid unit once. */
  private LinkedHashSet<String> units() {
    List<String> rawUnits = seedKeys.list(settings.workunitsNamespace());
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
    return units;
  }

  /** A member whose lease is live belongs in the list (something removed it: an operator, an older -remove-dead). */
  private void addBackLiveRecords(Set<String> liveIds, LinkedHashSet<String> members) {
    for (String id : liveIds.stream().sorted(Names.BYTE_ORDER).toList()) {
      if (!members.contains(id)) {
        if (seedKeys.addToList(group, id)) {
          log.warn("group={} member={} added back to {}: its lease is live", group, id, group);
        }
        members.add(id);
      }
    }
  }

  /** Removes records expired for longer than the cleanup age; the store removes only those still expired. */
  private void removeStaleRecords(List<MemberRecord> stale, LinkedHashSet<String> members) {
    for (MemberRecord r : stale) {
      if (membership.removeIfExpired(r.id(), r.session())) {
        members.remove(r.id());
        log.info("group={} member={} removed: its lease ended over {} s ago", group, r.id(), cleanupAge.toSeconds());
      }
    }
  }

  /** Pings {@code pinged} in parallel and counts the outcomes. */
  private void pingAll(Set<String> pinged) {
    List<CompletableFuture<Pinger.Result>> results = new ArrayList<>(pinged.size());
    for (String m : pinged) {
      results.add(pinger.ping(m));
    }
    int failed = 0;
    for (CompletableFuture<Pinger.Result> f : results) {
      Pinger.Result r = f.join();
      pingTimer.record(Duration.ofNanos(r.nanos()));
      if (pings.record(r)) {
        failed++;
      }
    }
    pingFailures.record(failed);
    pings.retain(pinged);
  }

  private void logLeaseTransitions(Set<String> leaseDown) {
    for (String m : leaseDown) {
      if (!this.leaseDown.contains(m)) {
        log.warn("group={} member={} down: its lease ended", group, m);
      }
    }
    this.leaseDown.clear();
    this.leaseDown.addAll(leaseDown);
  }

  /**
   * {@code -remove-dead}: removes members down by pings from the list. Only members without a record are ever
   * pinged, and the records are read again first, so a member that registered meanwhile stays (a live lease is never
   * removed; were it removed anyway, the next round adds it back).
   */
  private void removeDead(LinkedHashSet<String> members) {
    Set<String> dead = pings.down();
    if (dead.isEmpty()) {
      return;
    }
    Set<String> registered = membership.members().keySet();
    for (String m : dead) {
      if (registered.contains(m)) {
        continue;
      }
      seedKeys.removeFromList(group, m);
      members.remove(m);
      pings.forget(m);
      log.warn("group={} member={} removed from {} (-remove-dead)", group, m, group);
    }
  }

  /** When the table must next be recomputed: a live lease ends, or a hold runs out. */
  private void scheduleNextChange(long t0, long now, LeaseJudge.Verdict leases, Map<String, UnitHold> holds) {
    long next = leases.millisToNextChange();
    for (UnitHold h : holds.values()) {
      next = Math.min(next, Math.max(h.untilMillis() - now, 0));
    }
    nextChangeAtNanos = next == Long.MAX_VALUE ? Long.MAX_VALUE : t0 + next * 1_000_000L;
  }

  /** The strategy's table for {@code live} and {@code units}; an unchanged fleet costs no recomputation. */
  private Table compute(List<Member> live, Set<String> units) {
    Set<Member> liveSet = new HashSet<>(live);
    if (memoTable != null && (memoPrevious == previous || !assigner.usesPrevious()) && liveSet.equals(memoMembers)
        && units.equals(memoUnits)) {
      return memoTable; // same inputs as the last computation: the table is a function of them
    }
    Table table;
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
    return table;
  }

  /**
   * Epochs only grow: one at or below the last this distributor published means the store lost state (a restart
   * without persistence, a rollback, a failover to a replica that missed writes). Warns naming the store, and
   * forgets everything computed, so the next round recomputes and publishes from scratch.
   */
  private void checkEpoch(long epoch) {
    if (epoch <= lastEpoch) {
      lostState.increment();
      log.warn("group={} store {} lost state: published epoch {} after epoch {}; recomputing the table from scratch",
          group, storeName, epoch, lastEpoch);
      memoTable = null;
      memoMembers = null;
      memoUnits = null;
      memoPrevious = null;
      lastPublished = null;
    }
    lastEpoch = epoch;
  }

  /**
   * Milliseconds until the next moment the table must change (store time): a registered member's lease, plus the
   * store's clock margin, ends (from then on its units can be claimed), or a hold runs out; {@link Long#MAX_VALUE}
   * if none or not leader. The caller runs a round right then, so a dead worker's units move the moment they can
   * instead of at the next poll.
   */
  public long millisToNextChange() {
    long at = nextChangeAtNanos;
    if (lease == null || at == Long.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, Math.floorDiv(at - System.nanoTime() + 999_999, 1_000_000L));
  }

  private boolean wasLive(String m) {
    return previous.members().contains(m);
  }

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
        leadership.release(lease);
        log.info("group={} released leadership", group);
      } catch (RuntimeException e) {
        log.warn("group={} could not release leadership: {}", group, e.toString());
      }
      stepDown();
    }
  }
}
