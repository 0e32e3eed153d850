package io.allot.sim;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Injects faults at random moments (exponential gaps around {@link SimConfig#faultEvery()}) until {@link #stop()}:
 * the kind by weight, the target and the size at random. A fault that has no target (nothing to restart, one member
 * left) is skipped. Store clock steps are at most {@link SimConfig#maxClockStep()} and at least two lease TTLs apart,
 * so that one lease never sees two of them: what the clock margin is documented to absorb.
 *
 * <p>Not thread-safe (confined to the simulation's thread).
 */
final class Faults {
  private static final Map<Fault, Integer> WEIGHTS = new EnumMap<>(Map.ofEntries(
      Map.entry(Fault.PAUSE, 14), Map.entry(Fault.KILL, 5), Map.entry(Fault.RESTART, 10),
      Map.entry(Fault.DUPLICATE, 3), Map.entry(Fault.CANCEL, 5), Map.entry(Fault.RELEASE, 10),
      Map.entry(Fault.LINK, 14), Map.entry(Fault.STORE_RESTART, 3), Map.entry(Fault.STORE_WIPE, 3),
      Map.entry(Fault.CLOCK_STEP, 8), Map.entry(Fault.UNITS, 8), Map.entry(Fault.AFFINITY, 6),
      Map.entry(Fault.DISTRIBUTOR_RESTART, 3)));
  private static final int TOTAL = WEIGHTS.values().stream().mapToInt(Integer::intValue).sum();
  /** The share of self-fences after which the member cancels itself (an onLeaseLost that shuts down). */
  private static final double CANCEL_ON_FENCE = 0.15;

  private final Sim sim;
  private final Trace trace;
  private final SimConfig config;
  private final Fleet fleet;
  private final SimStore store;
  private final SimDistributor distributor;
  private final UnitSet units;
  private final Map<Fault, Integer> counts = new EnumMap<>(Fault.class);
  private boolean on = true;
  private long lastStepAt = Long.MIN_VALUE / 2;

  Faults(Sim sim, Trace trace, SimConfig config, Fleet fleet, SimStore store, SimDistributor distributor,
      UnitSet units) {
    this.sim = sim;
    this.trace = trace;
    this.config = config;
    this.fleet = fleet;
    this.store = store;
    this.distributor = distributor;
    this.units = units;
  }

  /** Schedules the first fault. */
  void start() {
    scheduleNext();
  }

  /** No more faults from now on. */
  void stop() {
    on = false;
  }

  /** Faults injected so far, by kind. */
  Map<Fault, Integer> counts() {
    return new EnumMap<>(counts);
  }

  /** A member fenced itself: sometimes its application cancels it right away. */
  void fenced(Fleet.Proc p) {
    if (on && sim.chance(CANCEL_ON_FENCE)) {
      sim.after(sim.uniform(0, 100_000_000L), null, () -> {
        if (on && p.running()) {
          count(Fault.CANCEL_ON_FENCE, p.member().name());
          p.member().cancel();
        }
      });
    }
  }

  private void scheduleNext() {
    double mean = config.faultEvery().toNanos();
    long gap = (long) (-Math.log(1 - sim.random().nextDouble()) * mean);
    sim.after(gap, null, () -> {
      if (on) {
        inject(pick());
        scheduleNext();
      }
    });
  }

  private Fault pick() {
    int r = sim.random().nextInt(TOTAL);
    for (Fault f : Fault.values()) {
      Integer w = WEIGHTS.get(f);
      if (w != null) {
        r -= w;
        if (r < 0) {
          return f;
        }
      }
    }
    throw new IllegalStateException("weights do not add up");
  }

  private void inject(Fault f) {
    switch (f) {
      case PAUSE -> {
        Fleet.Proc p = anyUp();
        if (p != null) {
          long d = duration(new long[] {10, 500, 1_500, 4_000}, new double[] {0.6, 0.3, 0.1});
          count(f, p.member().name() + " for " + d / 1_000_000L + " ms");
          p.member().pause(d);
        }
      }
      case KILL -> {
        Fleet.Proc p = fleet.up().size() > 1 ? anyUp() : null;
        if (p != null) {
          count(f, p.member().name());
          fleet.kill(p);
        }
      }
      case RESTART -> {
        List<String> down = fleet.down();
        if (!down.isEmpty()) {
          String id = down.get(sim.random().nextInt(down.size()));
          count(f, id);
          fleet.start(id);
        }
      }
      case DUPLICATE -> {
        List<String> up = fleet.upIds();
        if (!up.isEmpty()) {
          String id = up.get(sim.random().nextInt(up.size()));
          count(f, id);
          fleet.start(id);
        }
      }
      case CANCEL -> {
        List<Fleet.Proc> running = fleet.running();
        if (running.size() > 1) {
          Fleet.Proc p = running.get(sim.random().nextInt(running.size()));
          count(f, p.member().name());
          p.member().cancel();
        }
      }
      case RELEASE -> {
        List<Fleet.Proc> running = fleet.running();
        if (!running.isEmpty()) {
          Fleet.Proc p = running.get(sim.random().nextInt(running.size()));
          if (p.app().releaseOne()) {
            count(f, p.member().name());
          }
        }
      }
      case LINK -> {
        Fleet.Proc p = anyUp();
        if (p != null) {
          long d = duration(new long[] {50, 500, 2_500}, new double[] {0.4, 0.6});
          count(f, p.member().name() + " for " + d / 1_000_000L + " ms");
          p.member().cutLink(d);
        }
      }
      case STORE_RESTART, STORE_WIPE -> {
        long downtime = sim.uniform(0, 300_000_000L);
        count(f, "down for " + downtime / 1_000_000L + " ms");
        store.restart(f == Fault.STORE_RESTART, downtime);
      }
      case CLOCK_STEP -> {
        long max = config.maxClockStep().toNanos();
        if (max > 0 && sim.now() - lastStepAt >= 2 * config.leaseTtl().toNanos()) {
          lastStepAt = sim.now();
          long step = sim.chance(0.75) ? sim.uniform(max / 2, max + 1) : -sim.uniform(0, max + 1);
          count(f, (step >= 0 ? "+" : "") + step / 1_000L + " us");
          store.stepClock(step);
        }
      }
      case UNITS -> {
        if (units.size() > 4 && sim.chance(0.5)) {
          count(f, "removed " + units.remove(sim.random().nextInt(units.size())));
        } else {
          count(f, "added " + units.add());
        }
      }
      case AFFINITY -> {
        List<Fleet.Proc> running = fleet.running();
        if (!running.isEmpty()) {
          Fleet.Proc p = running.get(sim.random().nextInt(running.size()));
          int a = sim.chance(0.25) ? 0 : 1 + sim.random().nextInt(3);
          count(f, p.member().name() + " -> " + a);
          p.member().divider().setAffinity(a);
        }
      }
      case DISTRIBUTOR_RESTART -> {
        count(f, "");
        distributor.restart();
      }
      default -> throw new IllegalStateException("no injection for " + f);
    }
  }

  private Fleet.Proc anyUp() {
    List<Fleet.Proc> up = fleet.up();
    return up.isEmpty() ? null : up.get(sim.random().nextInt(up.size()));
  }

  /** A duration in ms: bucket i (between bounds[i] and bounds[i+1]) with probability shares[i]. */
  private long duration(long[] boundsMillis, double[] shares) {
    double r = sim.random().nextDouble();
    int i = 0;
    while (i < shares.length - 1 && r >= shares[i]) {
      r -= shares[i];
      i++;
    }
    return sim.uniform(boundsMillis[i] * 1_000_000L, boundsMillis[i + 1] * 1_000_000L);
  }

  private void count(Fault f, String what) {
    counts.merge(f, 1, Integer::sum);
    trace.add("fault", f + " " + what);
  }
}
