package io.allot.server.distributor;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Changes;
import io.allot.core.assign.CostFit;
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
import io.allot.store.UnitOwner;
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
 * The distributor of one pool (one services list): elects itself leader, judges the members (a member with a
 * member record by its lease, {@link LeaseJudge}; one without, an original-style service, by pings, {@link
 * PingJudge}), keeps the list consistent with the live registrations, computes the table with the held units placed
 * apart ({@link HoldPlacement}) and publishes it when it changed. {@link #cycle()} runs one poll round (pings
 * included); {@link #react()} one round for a change announced in the store or a lease end, which pings only members
 * it has never pinged. Run by {@link DistributorServer}, the poll rounds' pings of known members go on in the
 * background ({@link #pingInBackground}), so no round waits for a slow ping. The caller schedules them, and runs one more at {@link #millisToNextChange()}. Not
 * thread-safe: run rounds one at a time; only the change hints ({@link #unitsChanged()}) may come from any thread.
 *
 * <p>Steady cost at scale: the units list is read again only when announced changed ({@link #unitsChanged()}), or at
 * a poll round when the last read was cheap (at most {@link #UNITS_READ_SHARE} of the poll interval: every poll, as
 * the original did), or when {@link #UNITS_REREAD_FACTOR} times the last read's duration has passed (a list changed
 * without an announcement is seen that late). Between changes nothing is recomputed nor re-encoded: the same units
 * object, members and previous table give the memoized table, and an unchanged table is not encoded again. On a
 * change only the changed members' entries are encoded anew; the others keep the very strings published last,
 * which lets a store send and write only the difference ({@link Tables#publish}).
 */
public final class PoolDistributor {
  private static final Logger log = LoggerFactory.getLogger(PoolDistributor.class);

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
  private final String pool;
  private final String holder;
  private final String leaseName;
  private final BiConsumer<String, Published> onPublish;
  private final String storeName;
  private final LeaseJudge leaseJudge;
  private final long clockMarginMillis;
  private final Duration cleanupAge;

  // The state below is confined to the thread running cycle() and release() (one at a time, see the class
  // comment); only `lease` is also read by other threads (isLeader(), lease()), hence volatile.
  private volatile Lease lease;
  private Map<String, String> lastPublished;
  /** The table {@link #lastPublished} encodes (null: none), and the members it was published for. */
  private Table lastTable;
  private Set<String> lastMembers;
  private Table previous = Table.EMPTY;
  /** The last cost fit: its input table, units and members, and its result. */
  private Table fitIn;
  private PoolUnits fitUnits;
  private Set<Member> fitMembers;
  private Table fitOut;
  /** Reads the units: from the pool's task specs if it has any, else from the units list. */
  private final UnitsReader units;
  /** The units free of holds, for {@link #freeOfHolds}: the same object while units and held units are unchanged. */
  private Set<String> free;
  private Set<String> freeHeld;
  private Set<String> freeOf;
  // the inputs and result of the last computation, so an unchanged fleet costs no recomputation
  private Set<Member> memoMembers;
  private Set<String> memoUnits;
  private Table memoPrevious;
  private Table memoTable;
  private final PingJudge pings;
  /** Registered members in the list whose lease ended (for logging each transition once). */
  private final Set<String> leaseDown = new HashSet<>();
  private final BadData badData;
  private boolean warnedNoUnits;
  /** The highest epoch this distributor published, over all its terms (0: none yet). */
  private long lastEpoch;
  /** System.nanoTime() of the next lease end or hold end; Long.MAX_VALUE: none. */
  private long nextChangeAtNanos = Long.MAX_VALUE;
  private long lastPingNanos;
  /** When each phase of the current round ended (System.nanoTime(), 0: not reached), for the debug log. */
  private final long[] phaseEnds = new long[PHASES.length];
  private static final String[] PHASES = {"lists", "records", "units", "pings", "holds", "compute", "encode", "publish"};
  /** Called when a background ping round completes; set before the first round ({@link #pingInBackground}). */
  private volatile Runnable pingsDone;
  /** The background ping round in flight (null: none) and when it started; confined to the loop thread. */
  private CompletableFuture<List<Pinger.Result>> pingsInFlight;
  private long pingsStartedNanos;
  /** Whether the last background ping round had a failure; written by the pinger thread completing it. */
  private volatile boolean lastPingsFailed;

  // metrics
  private final AtomicInteger upGauge = new AtomicInteger();
  private final AtomicInteger downGauge = new AtomicInteger();
  private final AtomicInteger unitsGauge = new AtomicInteger();
  private final AtomicInteger unassignedGauge = new AtomicInteger();
  private final AtomicInteger leaderGauge = new AtomicInteger();
  private final Counter tableChanges;
  private final Counter storeErrors;
  private final Counter lostState;
  private final Timer cycleTimer;
  private final Timer pingTimer;
  private final Timer computeTimer;
  private final Timer publishTimer;
  private final DistributionSummary pingFailures;

  /** A published table. */
  public record Published(long epoch, Table table, Set<String> down) {}

  public PoolDistributor(
      Store store,
      Pinger pinger,
      Assigner assigner,
      DistributorSettings settings,
      String pool,
      String holder,
      MeterRegistry registry,
      BiConsumer<String, Published> onPublish) {
    this.seedKeys = store.seedKeys();
    this.membership = store.membership(pool);
    this.ownership = store.ownership(pool);
    this.tables = store.tables();
    this.leadership = store.leadership();
    this.clock = store.clock();
    this.pinger = pinger;
    this.assigner = assigner;
    this.settings = settings;
    this.pool = pool;
    this.holder = holder;
    this.leaseName = Tables.leaseName(settings.distributionNamespace(), pool);
    this.onPublish = onPublish;
    this.storeName = store.describe();
    this.leaseJudge = LeaseJudge.of(store.safety());
    this.clockMarginMillis = store.safety().clockMargin().toMillis();
    this.cleanupAge = LeaseJudge.cleanupAge(store.safety());
    this.pings = new PingJudge(pool, settings.downAfter());
    Gauge.builder("allot_members", upGauge, AtomicInteger::get).tag("pool", pool).tag("state", "up").description("members answering pings").register(registry);
    Gauge.builder("allot_members", downGauge, AtomicInteger::get).tag("pool", pool).tag("state", "down").description("members marked down").register(registry);
    Gauge.builder("allot_units", unitsGauge, AtomicInteger::get).tag("pool", pool).description("work units").register(registry);
    Gauge.builder("allot_units_unassigned", unassignedGauge, AtomicInteger::get).tag("pool", pool).description("units no member could take (capacity)").register(registry);
    Gauge.builder("allot_leader", leaderGauge, AtomicInteger::get).tag("pool", pool).description("1 while this process leads the pool").register(registry);
    tableChanges = Counter.builder("allot_table_changes").tag("pool", pool).description("tables published").register(registry);
    badData = new BadData(pool, Counter.builder("allot_bad_data").tag("pool", pool).description("invalid entries found in the store (skipped)").register(registry));
    units = new UnitsReader(List.of(
        new TaskSpecUnits(store.taskSpecs(pool), ownership, pool, settings.taskRetention(), clockMarginMillis),
        new UnitsList(seedKeys, settings.workunitsNamespace(), badData)), settings.pollInterval(), pool);
    storeErrors = Counter.builder("allot_store_errors").tag("pool", pool).description("cycles that failed on the store").register(registry);
    lostState = Counter.builder("allot_store_lost_state").tag("pool", pool).description("publications whose epoch went backwards: the store lost state").register(registry);
    cycleTimer = Timer.builder("allot_cycle").tag("pool", pool).description("one distributor cycle").register(registry);
    pingTimer = Timer.builder("allot_ping").tag("pool", pool).publishPercentileHistogram().description("ping latency").register(registry);
    computeTimer = Timer.builder("allot_compute").tag("pool", pool).description("table computation").register(registry);
    publishTimer = Timer.builder("allot_publish").tag("pool", pool).description("table write").register(registry);
    pingFailures = DistributionSummary.builder("allot_ping_failures").tag("pool", pool).description("failed pings per cycle").register(registry);
  }

  public String pool() {
    return pool;
  }

  public boolean isLeader() {
    return lease != null;
  }

  /** The lease held, if leader. */
  public Lease lease() {
    return lease;
  }

  /**
   * One poll round: every member without a record is pinged. Never throws: store failures are logged and counted,
   * and the next round retries.
   */
  public void cycle() {
    run(true);
  }

  /**
   * One round for a change: a member registered, changed or left, a list changed, a lease or hold ends. Pings only
   * the members without a record it has never pinged (so a new original-style service is still pinged before it
   * gets units); the others keep the verdict of the last poll round. Never throws, as {@link #cycle()}.
   */
  public void react() {
    run(false);
  }

  /** The units list changed (a hint from any thread): the next round reads it again. */
  public void unitsChanged() {
    units.changed();
  }

  private void run(boolean poll) {
    long t0 = System.nanoTime();
    java.util.Arrays.fill(phaseEnds, 0);
    try {
      if (!lead()) {
        return;
      }
      round(poll);
    } catch (FencedException e) {
      log.warn("pool={} lost leadership while publishing: {}", pool, e.getMessage());
      stepDown();
    } catch (RuntimeException e) {
      storeErrors.increment();
      log.warn("pool={} cycle failed: {}", pool, e.toString());
    } finally {
      long t1 = System.nanoTime();
      cycleTimer.record(Duration.ofNanos(t1 - t0));
      if (log.isDebugEnabled()) {
        logPhases(poll, t0, t1);
      }
    }
  }

  private boolean lead() {
    if (lease != null) {
      boolean renewed;
      try {
        renewed = leadership.renew(lease, settings.leaderTtl());
      } catch (RuntimeException e) {
        // cannot tell whether the lease is still ours: act as if not (a standby may take over)
        log.warn("pool={} cannot renew leadership ({}); stepping down", pool, e.toString());
        stepDown();
        throw e;
      }
      if (!renewed) {
        log.warn("pool={} leadership lost (lease expired or taken over)", pool);
        stepDown();
        return false;
      }
      return true;
    }
    lease = leadership.tryAcquire(leaseName, holder, settings.leaderTtl()).orElse(null);
    if (lease != null) {
      leaderGauge.set(1);
      lastPublished = null; // first act: full recompute and compare with what the store holds
      lastTable = null;
      memoTable = null;
      previous = readPublished(); // the table in force: a stateful strategy continues from it, not from nothing
      log.info("pool={} leader token={} holder={}", pool, lease.token(), holder);
    }
    return lease != null;
  }

  private Table readPublished() {
    Map<String, String> hash = tables.read(settings.distributionNamespace());
    Set<String> members = new HashSet<>(seedKeys.list(pool));
    Map<String, String> mine = new LinkedHashMap<>();
    hash.forEach((k, v) -> {
      if (members.contains(k)) {
        mine.put(k, v);
      }
    });
    return SeedLayout.parseHash(mine, msg -> log.warn("pool={} published table: {}", pool, msg));
  }

  private void stepDown() {
    lease = null;
    leaderGauge.set(0);
    lastPublished = null;
    lastTable = null;
  }

  private void logPhases(boolean poll, long t0, long t1) {
    StringBuilder b = new StringBuilder();
    long last = t0;
    for (int i = 0; i < PHASES.length; i++) {
      if (phaseEnds[i] != 0) {
        b.append(' ').append(PHASES[i]).append('=').append((phaseEnds[i] - last) / 1_000_000).append("ms");
        last = phaseEnds[i];
      }
    }
    log.debug("pool={} {} round {} ms:{}", pool, poll ? "poll" : "change", (t1 - t0) / 1_000_000, b);
  }

  private void phase(int i) {
    phaseEnds[i] = System.nanoTime();
  }

  private void round(boolean poll) {
    List<String> raw = seedKeys.list(pool);
    phase(0);
    long t0 = System.nanoTime(); // before the clock read: a wake-up computed from it is never late
    long now = clock.timeMillis(); // before the records: a lease seen ended had ended when they were read
    Map<String, MemberRecord> records = membership.members();
    phase(1);
    LeaseJudge.Verdict leases = leaseJudge.judge(records.values(), now);
    LinkedHashSet<String> members = members(raw, records.keySet());
    addBackLiveRecords(leases.live(), members);
    removeStaleRecords(leases.stale(), members);
    PoolUnits units = this.units.units(poll, pingsDone);
    unitsGauge.set(units.size());
    phase(2);

    // members with a record are judged by their lease only; the others (original-style services) by pings
    Set<String> pinged = new LinkedHashSet<>(members);
    pinged.removeAll(records.keySet());
    boolean pinging = collectPings();
    pings.retain(pinged);
    Set<String> fresh = pings.neverPinged(pinged);
    if (pingsDone == null) {
      Set<String> pingNow = poll ? pinged : fresh;
      if (!pingNow.isEmpty()) {
        pingAll(pingNow);
      }
    } else {
      if (!fresh.isEmpty()) {
        pingAll(fresh); // a member new in the list is pinged before it can get units
      }
      if (poll && !pinging && pinged.size() > fresh.size()) {
        Set<String> known = new LinkedHashSet<>(pinged);
        known.removeAll(fresh);
        Runnable done = pingsDone;
        pingsStartedNanos = System.nanoTime();
        pingsInFlight = startPings(known);
        pingsInFlight.thenAccept(results -> {
          // a round only if a verdict may change: a ping failed, or one failed in the round before (it may be back)
          boolean failed = results.stream().anyMatch(r -> !r.ok());
          if (failed || lastPingsFailed) {
            done.run();
          }
          lastPingsFailed = failed;
        });
      }
    }
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
    phase(3);

    // a unit released with a hold goes to another member while the hold lasts
    Map<String, UnitHold> holds = units.isEmpty() ? Map.of()
        : HoldPlacement.binding(ownership.holds(), units.names(), live);
    scheduleNextChange(t0, now, leases, holds);

    if (poll) {
      units.source().maintain(units, records, now);
    }
    if (units.isEmpty() && units.source().emptyKeepsTable()) {
      if (!warnedNoUnits) {
        log.warn("pool={} no work units in '{}': keeping the table as it is", pool, settings.workunitsNamespace());
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
    phase(4);
    long c0 = System.nanoTime();
    Table table = HoldPlacement.place(compute(live, freeOfHolds(units, holds.keySet())), live, holds.values());
    if (units.source().costed()) {
      table = fitCosts(table, live, units);
    }
    computeTimer.record(Duration.ofNanos(System.nanoTime() - c0));
    unassignedGauge.set(table.unassigned().size());
    phase(5);
    if (table == lastTable && members.equals(lastMembers)) {
      return; // the memoized table, for the same members: nothing to encode or compare
    }
    Map<String, String> fields = encode(table, members);
    phase(6);
    if (fields.equals(lastPublished)) {
      lastTable = table;
      lastMembers = members;
      return;
    }
    long w0 = System.nanoTime();
    long epoch = tables.publish(lease, settings.distributionNamespace(), pool, fields);
    publishTimer.record(Duration.ofNanos(System.nanoTime() - w0));
    phase(7);
    lastPublished = fields;
    lastTable = table;
    lastMembers = members;
    previous = table;
    tableChanges.increment();
    if (!table.unassigned().isEmpty()) {
      log.warn("pool={} {} units could not be placed (capacity exhausted{})", pool, table.unassigned().size(),
          holds.isEmpty() ? "" : ", or held units with no other member to take them");
    }
    log.info("pool={} published epoch={} members={} up={} down={} units={}{}", pool, epoch, members.size(), live.size(),
        down.size(), units.size(), holds.isEmpty() ? "" : " held=" + holds.size());
    checkEpoch(epoch);
    if (onPublish != null) {
      onPublish.accept(pool, new Published(epoch, table, Set.copyOf(down)));
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
          badData.report("member", m, pool + ": " + e.getMessage());
          continue;
        }
      }
      if (!members.add(m)) {
        badData.report("duplicate member", m, pool + ": member '" + m + "' is listed twice; counted once");
      }
    }
    return members;
  }

  /**
   * The seed-compatible distribution hash of {@code table} for {@code members}: down (or not yet answering) members
   * are told explicitly that they have nothing. A member whose units are those last published keeps the very string
   * published then; only changed members are encoded anew.
   */
  private Map<String, String> encode(Table table, Set<String> members) {
    Map<String, String> fields = new LinkedHashMap<>();
    Map<String, String> before = lastPublished == null ? Map.of() : lastPublished;
    Table beforeTable = lastTable == null ? Table.EMPTY : lastTable;
    table.byMember().forEach((m, list) -> {
      String old = before.get(m);
      List<String> oldList = beforeTable.unitsOf(m);
      fields.put(m, old != null && (oldList == list || oldList.equals(list)) ? old : SeedLayout.join(list));
    });
    for (String m : members) {
      if (!fields.containsKey(m)) {
        String old = before.get(m);
        fields.put(m, old != null && old.isEmpty() ? old : "");
      }
    }
    return fields;
  }

  /** {@code units} without the held ones: the same object while neither changed, so the memo holds. */
  private Set<String> freeOfHolds(PoolUnits units, Set<String> held) {
    if (held.isEmpty()) {
      return units.names();
    }
    if (free == null || freeOf != units.names() || !held.equals(freeHeld)) {
      LinkedHashSet<String> f = new LinkedHashSet<>(units.names());
      f.removeAll(held);
      free = f;
      freeOf = units.names();
      freeHeld = Set.copyOf(held);
    }
    return free;
  }



  /** The table with capacities counted in task costs ({@link CostFit}); the same object while nothing changed. */
  private Table fitCosts(Table table, List<Member> live, PoolUnits su) {
    if (fitIn == table && fitUnits == su && new HashSet<>(live).equals(fitMembers)) {
      return fitOut;
    }
    fitIn = table;
    fitUnits = su;
    fitMembers = new HashSet<>(live);
    fitOut = CostFit.fit(table, live, su.costs());
    return fitOut;
  }


  /** A member whose lease is live belongs in the list (something removed it: an operator, an older -remove-dead). */
  private void addBackLiveRecords(Set<String> liveIds, LinkedHashSet<String> members) {
    for (String id : liveIds.stream().filter(x -> !members.contains(x)).sorted(Names.BYTE_ORDER).toList()) {
      if (seedKeys.addToList(pool, id)) {
        log.warn("pool={} member={} added back to {}: its lease is live", pool, id, pool);
      }
      members.add(id);
    }
  }

  /** Removes records expired for longer than the cleanup age; the store removes only those still expired. */
  private void removeStaleRecords(List<MemberRecord> stale, LinkedHashSet<String> members) {
    for (MemberRecord r : stale) {
      if (membership.removeIfExpired(r.id(), r.session())) {
        members.remove(r.id());
        log.info("pool={} member={} removed: its lease ended over {} s ago", pool, r.id(), cleanupAge.toSeconds());
      }
    }
  }

  /** Pings {@code pinged} in parallel and counts the outcomes. */
  private void pingAll(Set<String> pinged) {
    long p0 = System.nanoTime();
    recordPings(startPings(pinged).join());
    recordPingTime(System.nanoTime() - p0);
  }

  /** Pings {@code pinged} in parallel; the future completes (never exceptionally) when every ping did. */
  private CompletableFuture<List<Pinger.Result>> startPings(Set<String> pinged) {
    List<CompletableFuture<Pinger.Result>> results = new ArrayList<>(pinged.size());
    for (String m : pinged) {
      results.add(pinger.ping(m));
    }
    return CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0]))
        .thenApply(v -> results.stream().map(CompletableFuture::join).toList());
  }

  private void recordPings(List<Pinger.Result> results) {
    int failed = 0;
    for (Pinger.Result r : results) {
      pingTimer.record(Duration.ofNanos(r.nanos()));
      if (pings.record(r)) {
        failed++;
      }
    }
    pingFailures.record(failed);
  }

  /**
   * Runs the poll rounds' pings of members already pinged in the background from now on: the round starts them and
   * goes on with the verdicts it has; when they complete with a failure (or after a round with one), {@code done} is
   * called (from a pinger thread) and the next round records them (all answered, as before: the next poll round). The caller makes {@code done} run a round, so a slow ping round never delays a change round.
   * Without it (rounds run by hand), every poll round waits for its pings. Call before the first round.
   */
  public void pingInBackground(Runnable done) {
    this.pingsDone = done;
  }

  /** Records the background ping round if it completed; true if one is still running. */
  private boolean collectPings() {
    CompletableFuture<List<Pinger.Result>> f = pingsInFlight;
    if (f == null) {
      return false;
    }
    if (!f.isDone()) {
      return true;
    }
    pingsInFlight = null;
    recordPings(f.join());
    recordPingTime(System.nanoTime() - pingsStartedNanos);
    return false;
  }

  private void logLeaseTransitions(Set<String> leaseDown) {
    for (String m : leaseDown) {
      if (!this.leaseDown.contains(m)) {
        log.warn("pool={} member={} down: its lease ended", pool, m);
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
      seedKeys.removeFromList(pool, m);
      members.remove(m);
      pings.forget(m);
      log.warn("pool={} member={} removed from {} (-remove-dead)", pool, m, pool);
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
    // the previous table being the memo's own result (it was published as computed) counts as unchanged: a table in
    // force for the same members and units stays as it is
    if (memoTable != null && (memoPrevious == previous || memoTable == previous || !assigner.usesPrevious())
        && liveSet.equals(memoMembers)
        && units.equals(memoUnits)) {
      return memoTable; // same inputs as the last computation: the table is a function of them
    }
    Table table;
    if (memoTable != null && (!assigner.usesPrevious() || memoTable == previous)) {
      // incremental: the strategy recomputes only what the changes can affect (same result as a full run)
      // the same units object: only members changed (no pass over the units)
      Changes changes = units == memoUnits
          ? Changes.between(memoMembers, liveSet, Set.of(), Set.of())
          : Changes.between(memoMembers, liveSet, memoUnits, units);
      table = assigner.update(memoTable, live, units, changes);
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
      log.warn("pool={} store {} lost state: published epoch {} after epoch {}; recomputing the table from scratch",
          pool, storeName, epoch, lastEpoch);
      memoTable = null;
      memoMembers = null;
      memoUnits = null;
      memoPrevious = null;
      lastPublished = null;
      lastTable = null;
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


  /** Gives up leadership (on shutdown) and stops the background units reader, if any. */
  public void release() {
    units.close();
    if (lease != null) {
      try {
        leadership.release(lease);
        log.info("pool={} released leadership", pool);
      } catch (RuntimeException e) {
        log.warn("pool={} could not release leadership: {}", pool, e.toString());
      }
      stepDown();
    }
  }
}
