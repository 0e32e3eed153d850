package io.allot.sim;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Assigners;
import io.allot.core.assign.HoldPlacement;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.MemberRecord;
import io.allot.store.Tables;
import io.allot.store.UnitHold;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * A small distributor after {@code PoolDistributor}: every poll (and when a member changes) it renews or takes its
 * leadership lease, reads the member records, the holds and the store time in one call, judges each member by its
 * lease (down once the lease ended plus the clock margin, store time), computes the table with a real assigner from
 * {@code allot-core} over the live members and the units that are not held, gives each held unit to the least-loaded
 * other live member (the server's own {@link HoldPlacement}), and publishes the table under its lease when it
 * changed. An epoch that went backwards (the store lost state) makes it forget what it published. Records expired
 * for a long time are removed with {@code removeIfExpired}. Each store call goes through the {@link Network}, so the table is computed from a view that may be
 * stale by the time it is published, as in real life.
 *
 * <p>Not thread-safe (confined to the simulation's thread). A restart ({@link #restart()}) forgets everything; the
 * answers to the old process's calls are ignored.
 */
final class SimDistributor implements Network.Subscriber {
  private final Sim sim;
  private final Network net;
  private final Trace trace;
  private final Assigner assigner;
  private final Supplier<Collection<String>> units;
  private final Duration leaderTtl;
  private final long pollNanos;
  private final long marginMillis;
  private final long cleanupAgeMillis;
  private final String leaseName = Tables.leaseName(SimProcess.TABLE, SimProcess.POOL);

  private int incarnation = 1;
  private Lease lease;
  private Map<String, String> lastPublished;
  private Table previous = Table.EMPTY;
  private long lastEpoch;
  private boolean busy;
  private boolean again;
  private Sim.Event next;

  /**
   * @param units the unit set, read when the distributor's read reaches the store (the work-units list)
   */
  SimDistributor(Sim sim, Network net, Trace trace, SimConfig config, Supplier<Collection<String>> units) {
    this.sim = sim;
    this.net = net;
    this.trace = trace;
    this.assigner = Assigners.byName(config.strategy());
    this.units = units;
    this.leaderTtl = config.leaderTtl();
    this.pollNanos = config.distributorPoll().toNanos();
    this.marginMillis = config.clockMargin().toMillis();
    this.cleanupAgeMillis = Math.max(30_000L, config.lostStateGuard().toMillis() * 10);
  }

  @Override
  public String name() {
    return "dist#" + incarnation;
  }

  @Override
  public boolean gone() {
    return false;
  }

  @Override
  public long pausedUntil() {
    return Long.MIN_VALUE;
  }

  @Override
  public boolean linkDown() {
    return false;
  }

  /** Starts cycling. */
  void start() {
    net.subscribe(this);
    schedule(0);
  }

  /** The process restarts: it forgets its lease (which runs out in the store) and everything it computed. */
  void restart() {
    incarnation++;
    lease = null;
    lastPublished = null;
    previous = Table.EMPTY;
    lastEpoch = 0;
    busy = false;
    again = false;
    trace.add(name(), "restarted");
    schedule(sim.uniform(0, pollNanos));
  }

  @Override
  public void onMembers(String id) {
    if (busy) {
      again = true;
    } else {
      schedule(0);
    }
  }

  private void schedule(long delay) {
    if (next != null) {
      next.cancel();
    }
    next = sim.after(delay, this, this::cycle);
  }

  private void cycle() {
    next = null;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    int inc = incarnation;
    if (lease != null) {
      Lease held = lease;
      net.call(this, "renew leadership", s -> s.leadership().renew(held, leaderTtl), String::valueOf, (ok, err) -> {
        if (inc != incarnation) {
          return;
        }
        if (err != null || !ok) {
          trace.add(name(), "leadership lost");
          stepDown();
          done(inc, 0);
          return;
        }
        read(inc);
      });
    } else {
      net.call(this, "acquire leadership", s -> s.leadership().tryAcquire(leaseName, name(), leaderTtl),
          l -> l.isPresent() ? "leader" : "not leader", (l, err) -> {
            if (inc != incarnation) {
              return;
            }
            if (err != null || l.isEmpty()) {
              done(inc, pollNanos);
              return;
            }
            lease = l.get();
            lastPublished = null; // first act: a full publication
            read(inc);
          });
    }
  }

  private record View(long nowMillis, Map<String, MemberRecord> records, Map<String, UnitHold> holds,
      List<String> units) {}

  private void read(int inc) {
    net.call(this, "read members", s -> new View(s.clock().timeMillis(), new TreeMap<>(
            s.membership(SimProcess.POOL).members()), new TreeMap<>(s.ownership(SimProcess.POOL).holds()),
            List.copyOf(units.get())), v -> v.records().size() + " records, " + v.holds().size() + " holds",
        (view, err) -> {
          if (inc != incarnation) {
            return;
          }
          if (err != null) {
            done(inc, pollNanos);
            return;
          }
          compute(inc, view);
        });
  }

  private void compute(int inc, View view) {
    List<Member> live = new ArrayList<>();
    List<String> down = new ArrayList<>();
    List<MemberRecord> stale = new ArrayList<>();
    long nextChange = Long.MAX_VALUE;
    for (MemberRecord r : view.records().values()) {
      long downAt = r.leaseUntilMillis() + marginMillis;
      if (view.nowMillis() < downAt) {
        live.add(Member.of(r.id(), r.affinity(), r.capacity()));
        nextChange = Math.min(nextChange, downAt - view.nowMillis());
      } else {
        down.add(r.id());
        if (view.nowMillis() - r.leaseUntilMillis() >= cleanupAgeMillis) {
          stale.add(r);
        }
      }
    }
    Map<String, UnitHold> held = HoldPlacement.binding(view.holds(), UnitHold::member, Set.copyOf(view.units()), live);
    for (UnitHold h : held.values()) {
      nextChange = Math.min(nextChange, Math.max(0, h.untilMillis() - view.nowMillis()));
    }
    List<String> free = new ArrayList<>(view.units());
    free.removeAll(held.keySet());
    Table table = HoldPlacement.place(assigner.assign(live, free, previous), live, held, UnitHold::member);
    Map<String, String> fields = new LinkedHashMap<>(table.toDistributionHash());
    down.forEach(id -> fields.putIfAbsent(id, "")); // down members: told explicitly they have nothing
    long wait = nextChange == Long.MAX_VALUE ? pollNanos : Math.min(pollNanos, nextChange * 1_000_000L + 1_000_000L);
    cleanup(stale);
    if (fields.equals(lastPublished)) {
      done(inc, wait);
      return;
    }
    Lease held0 = lease;
    net.call(this, "publish " + fields, s -> {
      long epoch = s.tables().publish(held0, SimProcess.TABLE, SimProcess.POOL, fields);
      net.announceTable();
      return epoch;
    }, e -> "epoch " + e, (epoch, err) -> {
      if (inc != incarnation) {
        return;
      }
      if (err instanceof FencedException) {
        trace.add(name(), "fenced while publishing");
        stepDown();
      } else if (err == null) {
        if (epoch <= lastEpoch) {
          trace.add(name(), "epoch went back from " + lastEpoch + " to " + epoch + ": the store lost state");
          previous = Table.EMPTY;
          lastPublished = null;
        } else {
          lastPublished = fields;
          previous = table;
        }
        lastEpoch = epoch;
      }
      done(inc, wait);
    });
  }

  private void cleanup(List<MemberRecord> stale) {
    for (MemberRecord r : stale) {
      net.call(this, "removeIfExpired " + r.id(), s -> {
        boolean removed = s.membership(SimProcess.POOL).removeIfExpired(r.id(), r.session());
        if (removed) {
          net.announceMembers(r.id());
        }
        return removed;
      }, String::valueOf, (removed, err) -> { });
    }
  }

  private void stepDown() {
    lease = null;
    lastPublished = null;
  }

  private void done(int inc, long wait) {
    if (inc != incarnation) {
      return;
    }
    busy = false;
    if (again) {
      again = false;
      schedule(0);
    } else {
      schedule(wait);
    }
  }
}
