package io.allot.server.distributor;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.HoldPlacement;
import io.allot.core.assign.SeedLayout;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
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
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The distributor of one pool (one services list): elects itself leader, judges the members (a member with a
 * member record by its lease, {@link LeaseJudge}; one without, an original-style service, by pings, {@link
 * PingJudge}), keeps the list consistent with the live registrations ({@link PoolMembers}), computes the table with
 * the held units placed apart ({@link TableComputer}) and publishes it when it changed ({@link TablePublisher}).
 * {@link #cycle()} runs one poll round (pings included); {@link #react()} one round for a change announced in the
 * store or a lease end, which pings only members it has never pinged. Run by {@link DistributorServer}, the poll
 * rounds' pings of known members go on in the background ({@link #pingInBackground}), so no round waits for a slow
 * ping. The caller schedules them, and runs one more at {@link #millisToNextChange()}. Not thread-safe: run rounds one
 * at a time; only the change hints ({@link #unitsChanged()}) may come from any thread.
 *
 * <p>The units come from a {@link UnitSource}: the pool's long-running task specs if it has any, else the units list
 * ({@link UnitsReader}). Steady cost at scale: the units list is read again only when announced changed ({@link
 * #unitsChanged()}), or at a poll round when the last read was cheap (at most {@link UnitsReader#READ_SHARE} of the
 * poll interval: every poll, as the original did), or when {@link UnitsReader#REREAD_FACTOR} times the last read's
 * duration has passed (a list changed without an announcement is seen that late). Between changes nothing is
 * recomputed nor re-encoded: the same units object, members and previous table give the memoized table, and an
 * unchanged table is not encoded again. On a change only the changed members' entries are encoded anew; the others
 * keep the very strings published last, which lets a store send and write only the difference ({@link
 * Tables#publish}).
 */
public final class PoolDistributor {
  private static final Logger log = LoggerFactory.getLogger(PoolDistributor.class);
  private static final String[] PHASES = {"lists", "records", "units", "pings", "holds", "compute", "encode", "publish"};

  // role views of the one store (cheap, thread-safe, valid until the store is closed)
  private final SeedKeys seedKeys;
  private final Membership membership;
  private final Ownership ownership;
  private final Tables tables;
  private final Leadership leadership;
  private final StoreClock clock;
  private final DistributorSettings settings;
  private final String pool;
  private final String holder;
  private final String leaseName;
  private final BiConsumer<String, Published> onPublish;
  private final LeaseJudge leaseJudge;
  // the parts, each confined to the thread running the rounds but for what they say
  private final PoolMetrics metrics;
  private final PoolMembers members;
  private final PoolPings pings;
  private final UnitsReader units;
  private final TableComputer computer;
  private final TablePublisher publisher;
  private final DistributorEvents events;

  // The state below is confined to the thread running cycle() and release() (one at a time, see the class
  // comment); only `lease` is also read by other threads (isLeader(), lease()), hence volatile.
  private volatile Lease lease;
  private boolean warnedNoUnits;
  /** System.nanoTime() of the next lease end or hold end; Long.MAX_VALUE: none. Read by the scheduling thread. */
  private volatile long nextChangeAtNanos = Long.MAX_VALUE;
  /** The ping-judged members of the last round (member to live), written by the loop thread, read by any. */
  private volatile Map<String, Boolean> pingVerdicts = Map.of();
  /** When each phase of the current round ended (System.nanoTime(), 0: not reached), for the debug log. */
  private final long[] phaseEnds = new long[PHASES.length];

  /** A published table. */
  public record Published(long epoch, Table table, Set<String> down) {}

  /**
   * The distributor of {@code pool} on {@code store}.
   *
   * @param holder    this process's name in the leadership lease
   * @param onPublish told of every table this distributor publishes (null: nobody)
   */
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
    this.settings = settings;
    this.pool = pool;
    this.holder = holder;
    this.leaseName = Tables.leaseName(settings.distributionNamespace(), pool);
    this.onPublish = onPublish;
    this.leaseJudge = LeaseJudge.of(store.safety());
    this.metrics = new PoolMetrics(registry, pool);
    BadData badData = new BadData(pool, metrics.badData);
    long clockMarginMillis = store.safety().clockMargin().toMillis();
    this.members = new PoolMembers(seedKeys, membership, pool, LeaseJudge.cleanupAge(store.safety()), badData);
    this.pings = new PoolPings(pool, pinger, settings.downAfter(), metrics);
    this.units = new UnitsReader(List.of(
        new TaskSpecUnits(store.taskSpecs(pool), ownership, pool, settings.taskRetention(), clockMarginMillis),
        new UnitsList(seedKeys, settings.workunitsNamespace(), badData)), settings.pollInterval(), pool);
    this.computer = new TableComputer(assigner);
    this.publisher = new TablePublisher(tables, settings.distributionNamespace(), pool, store.describe(), metrics);
    this.events = new DistributorEvents(io.allot.store.events.EventWriter.of(store), pool);
  }

  /** The pool distributed. */
  public String pool() {
    return pool;
  }

  /** True while this distributor leads its pool. */
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

  /**
   * Runs the poll rounds' pings of members already pinged in the background from now on: the round starts them and
   * goes on with the verdicts it has; when they complete with a failure (or after a round with one), {@code done} is
   * called (from a pinger thread) and the next round records them (all answered, as before: the next poll round).
   * The caller makes {@code done} run a round, so a slow ping round never delays a change round; a costly units list
   * is then re-read in the background too, calling {@code done} when read. Without it (rounds run by hand), every
   * poll round waits for its pings. Call before the first round.
   */
  public void pingInBackground(Runnable done) {
    pings.inBackground(done);
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

  /**
   * The members judged by pings (those without a member record: original-style services) at the last round, each to
   * whether it was live then; empty while this distributor does not lead the pool. Any thread.
   */
  public Map<String, Boolean> pingVerdicts() {
    return pingVerdicts;
  }

  /** Duration of the last ping round (all members in parallel). */
  public long lastPingRoundNanos() {
    return pings.lastRoundNanos();
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
      metrics.storeErrors.increment();
      log.warn("pool={} cycle failed: {}", pool, e.toString());
    } finally {
      long t1 = System.nanoTime();
      metrics.cycle.record(Duration.ofNanos(t1 - t0));
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
      metrics.leader.set(1);
      publisher.reset(); // first act: full recompute and compare with what the store holds
      // the table in force: a stateful strategy continues from it, not from nothing
      computer.startFrom(this::readPublished);
      log.info("pool={} leader token={} holder={}", pool, lease.token(), holder);
      events.leader(holder, lease.token());
    }
    return lease != null;
  }

  /** The table in force in the store for this pool's members (a unit listed twice kept once, warned about). */
  private Table readPublished() {
    Set<String> listed = new HashSet<>(seedKeys.list(pool));
    Map<String, List<String>> mine = new LinkedHashMap<>();
    tables.units(settings.distributionNamespace()).forEach((m, us) -> {
      if (listed.contains(m)) {
        mine.put(m, us);
      }
    });
    return SeedLayout.fromUnits(mine, msg -> log.warn("pool={} published table: {}", pool, msg));
  }

  private void stepDown() {
    lease = null;
    events.steppedDown();
    pingVerdicts = Map.of();
    metrics.leader.set(0);
    publisher.reset();
  }

  private void round(boolean poll) {
    List<String> raw = seedKeys.list(pool);
    phase(0);
    long t0 = System.nanoTime(); // before the clock read: a wake-up computed from it is never late
    long now = clock.timeMillis(); // before the records: a lease seen ended had ended when they were read
    Map<String, MemberRecord> records = membership.members();
    phase(1);
    LeaseJudge.Verdict leases = leaseJudge.judge(records.values(), now);
    LinkedHashSet<String> members = this.members.members(raw, records, leases);
    PoolUnits units = this.units.units(poll, pings.background());
    metrics.units.set(units.size());
    phase(2);

    // members with a record are judged by their lease only; the others (original-style services) by pings
    Set<String> pinged = new LinkedHashSet<>(members);
    pinged.removeAll(records.keySet());
    pings.round(pinged, poll);
    PingJudge judge = pings.judge();
    Set<String> leaseDown = new HashSet<>(leases.down());
    leaseDown.retainAll(members);
    this.members.leaseDown(leaseDown);
    List<Member> live = live(members, records, leases, judge);
    pingVerdicts = verdicts(pinged, live);
    if (settings.removeDead()) {
      this.members.removeDead(members, judge);
    }
    Set<String> down = new HashSet<>(judge.down());
    down.addAll(leaseDown);
    events.liveMembers(live.stream().map(Member::id).collect(java.util.stream.Collectors.toSet()), down);
    metrics.up.set(live.size());
    metrics.down.set(down.size());
    phase(3);

    // a unit released with a hold goes to another member while the hold lasts
    Map<String, UnitHold> holds = units.isEmpty() ? Map.of()
        : HoldPlacement.binding(ownership.holds(), UnitHold::member, units.names(), live);
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
    if (waitForAnswers(live, members, pinged, judge)) {
      return;
    }
    phase(4);
    long c0 = System.nanoTime();
    Table table = computer.table(live, units, holds);
    metrics.compute.record(Duration.ofNanos(System.nanoTime() - c0));
    metrics.unassigned.set(table.unassigned().size());
    phase(5);
    if (publisher.unchanged(table, members)) {
      return; // the memoized table, for the same members: nothing to encode or compare
    }
    Map<String, String> fields = publisher.changedFields(table, members);
    phase(6);
    if (fields != null) {
      publish(fields, table, members, live, down, units, holds);
    }
  }

  /** The live members in list order: a registered one by its lease, one without a record by its pings. */
  private List<Member> live(Set<String> members, Map<String, MemberRecord> records, LeaseJudge.Verdict leases,
      PingJudge judge) {
    List<Member> live = new ArrayList<>();
    Set<String> wasLive = computer.previous().members();
    for (String m : members) {
      MemberRecord r = records.get(m);
      if (r == null ? judge.live(m, wasLive.contains(m)) : leases.live().contains(m)) {
        live.add(r == null ? Member.of(m) : Member.of(m, r.affinity(), r.capacity()));
      }
    }
    return live;
  }

  /** Each member of {@code pinged} to whether it is in {@code live}. */
  private static Map<String, Boolean> verdicts(Set<String> pinged, List<Member> live) {
    if (pinged.isEmpty()) {
      return Map.of();
    }
    Set<String> liveIds = new HashSet<>();
    live.forEach(m -> liveIds.add(m.id()));
    Map<String, Boolean> out = new LinkedHashMap<>();
    pinged.forEach(m -> out.put(m, liveIds.contains(m)));
    return java.util.Collections.unmodifiableMap(out);
  }

  /** True if there is nothing worth publishing yet: nobody answers and nothing runs. */
  private boolean waitForAnswers(List<Member> live, Set<String> members, Set<String> pinged, PingJudge judge) {
    if (!live.isEmpty() || computer.previous().assignedCount() != 0) {
      return false;
    }
    if (publisher.hasPublished()) {
      return true; // nobody has answered yet and nothing runs: an empty table would say nothing new
    }
    // first pings still failing (cold start): wait for K failures before publishing "nobody"
    return !members.isEmpty() && pinged.equals(members) && members.stream().allMatch(judge::failing)
        && judge.down().isEmpty();
  }

  private void publish(Map<String, String> fields, Table table, Set<String> members, List<Member> live,
      Set<String> down, PoolUnits units, Map<String, UnitHold> holds) {
    Table previous = computer.previous();
    long epoch = publisher.publish(lease, fields, table, members);
    phase(7);
    events.published(epoch, previous, table);
    computer.published(table);
    if (!table.unassigned().isEmpty()) {
      log.warn("pool={} {}", pool, unplaced(table.unassigned().size(), live.size(), !holds.isEmpty()));
    }
    log.info("pool={} published epoch={} members={} up={} down={} units={}{}", pool, epoch, members.size(),
        live.size(), down.size(), units.size(), holds.isEmpty() ? "" : " held=" + holds.size());
    if (publisher.lostState(epoch)) {
      computer.forget();
    }
    if (onPublish != null) {
      onPublish.accept(pool, new Published(epoch, table, Set.copyOf(down)));
    }
  }

  /**
   * Why {@code count} units have no owner in the published table: the pool has no live member, or the live members'
   * capacity is exhausted (or held units have no other member to take them).
   */
  static String unplaced(int count, int liveMembers, boolean held) {
    String why = liveMembers == 0 ? "no live member in the pool"
        : "capacity exhausted" + (held ? ", or held units with no other member to take them" : "");
    return count + " units could not be placed (" + why + ")";
  }

  /** When the table must next be recomputed: a live lease ends, or a hold runs out. */
  private void scheduleNextChange(long t0, long now, LeaseJudge.Verdict leases, Map<String, UnitHold> holds) {
    long next = leases.millisToNextChange();
    for (UnitHold h : holds.values()) {
      next = Math.min(next, Math.max(h.untilMillis() - now, 0));
    }
    nextChangeAtNanos = next == Long.MAX_VALUE ? Long.MAX_VALUE : t0 + next * 1_000_000L;
  }

  private void phase(int i) {
    phaseEnds[i] = System.nanoTime();
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
}
