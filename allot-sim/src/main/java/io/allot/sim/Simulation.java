package io.allot.sim;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Runs the simulator: {@link #run(long, SimConfig)} is one seed, {@link #main} many from the shell.
 *
 * <p>A run: the distributor and the members start; for {@link SimConfig#steps()} events faults are injected and every
 * invariant is checked after every event; then the faults stop (links heal, nothing is lost any more, members that are
 * down start again, affinities go back to 1) and within {@link SimConfig#quiesceLimit()} every unit must run exactly
 * once. The first failed invariant ends the run; the report names it, with the event number and the end of the trace.
 */
public final class Simulation {
  private Simulation() {}

  /** One run of {@code seed}. */
  public static SimReport run(long seed, SimConfig config) {
    return run(seed, config, null);
  }

  /** One run of {@code seed} with {@code steps} events in the fault phase. */
  public static SimReport run(long seed, int steps, SimConfig config) {
    return run(seed, config.toBuilder().steps(steps).build(), null);
  }

  /** One run of {@code seed}; every trace line also goes to {@code traceSink} (null: none). */
  public static SimReport run(long seed, SimConfig config, Consumer<String> traceSink) {
    Sim sim = new Sim(seed);
    Trace trace = new Trace(sim, 60, traceSink);
    try (SimStore store = new SimStore(sim, config); Fibers fibers = new Fibers(sim)) {
      Network net = new Network(sim, store, trace, config);
      Ledger ledger = new Ledger(sim, store);
      UnitSet units = new UnitSet(config.units());
      SimDistributor distributor = new SimDistributor(sim, net, trace, config, units::snapshot);
      Faults[] faults = new Faults[1];
      Fleet fleet = new Fleet(sim, net, store, trace, ledger, fibers, config, p -> faults[0].fenced(p));
      faults[0] = new Faults(sim, trace, config, fleet, store, distributor, units);
      trace.add("sim", "seed " + seed + ", " + config.hole() + ", " + config.members() + " members, "
          + config.units() + " units, " + config.strategy());
      distributor.start();
      for (int i = 1; i <= config.members(); i++) {
        String id = "m" + i;
        sim.after(sim.uniform(0, 200_000_000L), null, () -> fleet.start(id));
      }
      faults[0].start();
      long quiesceMillis = -1;
      Optional<SimReport.Failure> failure = Optional.empty();
      try {
        fibers.drive(() -> {
          if (sim.executed() >= config.steps() || !sim.step()) {
            return false;
          }
          fibers.check();
          ledger.check();
          return true;
        });
        quiesceMillis = quiesce(sim, trace, config, net, fleet, faults[0], ledger, store, units, fibers);
      } catch (SimViolation v) {
        failure = Optional.of(failure(sim, trace, v.invariant(), v.getMessage()));
      } catch (RuntimeException e) {
        failure = Optional.of(failure(sim, trace, "crash", e.toString()));
      }
      return new SimReport(seed, config.hole(), sim.executed(), (sim.now() - Sim.EPOCH) / 1_000_000L, trace.hash(),
          trace.lines(), faults[0].counts(), sim.counts(), ledger.starts(), net.calls(), quiesceMillis, failure);
    }
  }

  /** Stops the faults and waits for every unit to run exactly once; returns how long it took (virtual ms). */
  private static long quiesce(Sim sim, Trace trace, SimConfig config, Network net, Fleet fleet, Faults faults,
      Ledger ledger, SimStore store, UnitSet units, Fibers fibers) {
    faults.stop();
    net.quiet();
    trace.add("sim", "faults stop; quiescing");
    long start = sim.now();
    long end = start + config.quiesceLimit().toNanos();
    supervise(sim, fleet);
    String[] missing = {Quiescence.missing(sim, fleet, ledger, store, units)};
    if (missing[0] != null) {
      fibers.drive(() -> {
        if (sim.nextAt() > end || !sim.step()) {
          return false;
        }
        fibers.check();
        ledger.check();
        missing[0] = Quiescence.missing(sim, fleet, ledger, store, units);
        return missing[0] != null;
      });
    }
    if (missing[0] != null) {
      throw new SimViolation("3 nothing-lost", "not every unit runs exactly once "
          + config.quiesceLimit().toSeconds() + " s after the faults stopped: " + missing[0]);
    }
    trace.add("sim", "quiesced: every unit runs exactly once");
    return (sim.now() - start) / 1_000_000L;
  }

  /** After the faults: every half second, links heal, down ids start again, affinities go back to 1. */
  private static void supervise(Sim sim, Fleet fleet) {
    for (Fleet.Proc p : fleet.up()) {
      p.member().healLink();
      if (p.running() && p.member().affinity() != 1) {
        p.member().divider().setAffinity(1);
      }
    }
    fleet.down().forEach(fleet::start);
    sim.after(500_000_000L, null, () -> supervise(sim, fleet));
  }

  private static SimReport.Failure failure(Sim sim, Trace trace, String invariant, String message) {
    return new SimReport.Failure(invariant, message, sim.executed(), (sim.now() - Sim.EPOCH) / 1_000_000L,
        trace.tail());
  }

  /**
   * From the shell: {@code --seeds N} (default 20) from {@code --from S} (default 1), or {@code --seed S} to replay
   * one seed and print its trace; {@code --steps N}, {@code --hole NAME} ({@link Hole}), {@code --strategy NAME}.
   * Exits 1 if a seed failed.
   */
  public static void main(String[] args) {
    PrintStream out = System.out;
    long from = 1;
    int seeds = 20;
    Long one = null;
    Hole hole = Hole.NONE;
    Integer steps = null;
    String strategy = null;
    Double slowRate = null;
    Double lossRate = null;
    for (int i = 0; i < args.length; i += 2) {
      String a = args[i];
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (a) {
        case "--seeds" -> seeds = Integer.parseInt(value(a, v));
        case "--from" -> from = Long.parseLong(value(a, v));
        case "--seed" -> one = Long.parseLong(value(a, v));
        case "--steps" -> steps = Integer.parseInt(value(a, v));
        case "--strategy" -> strategy = value(a, v);
        case "--hole" -> hole = Hole.valueOf(value(a, v).toUpperCase(Locale.ROOT));
        case "--slow-rate" -> slowRate = Double.parseDouble(value(a, v));
        case "--loss-rate" -> lossRate = Double.parseDouble(value(a, v));
        default -> throw new IllegalArgumentException("unknown argument '" + a + "'; use --seeds N --from S | --seed S,"
            + " --steps N, --hole " + List.of(Hole.values()) + ", --strategy NAME, --slow-rate R, --loss-rate R");
      }
    }
    SimConfig.Builder b = SimConfig.forHole(hole).toBuilder();
    if (steps != null) {
      b.steps(steps);
    }
    if (strategy != null) {
      b.strategy(strategy);
    }
    if (slowRate != null) {
      b.slowRate(slowRate);
    }
    if (lossRate != null) {
      b.lossRate(lossRate);
    }
    SimConfig config = b.build();
    if (one != null) {
      SimReport r = run(one, config, out::println);
      out.println(r.summary());
      System.exit(r.ok() ? 0 : 1);
    }
    List<SimReport> failed = new ArrayList<>();
    Map<String, Long> totals = new TreeMap<>();
    long t0 = System.nanoTime();
    for (long s = from; s < from + seeds; s++) {
      SimReport r = run(s, config);
      r.counts().forEach((k, n) -> totals.merge(k, n, Long::sum));
      r.faults().forEach((k, n) -> totals.merge("fault " + k, (long) n, Long::sum));
      if (!r.ok()) {
        failed.add(r);
        out.println(r.details());
      }
    }
    out.printf(Locale.ROOT, "%d seeds from %d (%s): %d failed, %.1f s%n", seeds, from, config.hole(), failed.size(),
        (System.nanoTime() - t0) / 1e9);
    out.println("totals: " + totals);
    System.exit(failed.isEmpty() ? 0 : 1);
  }

  private static String value(String name, String v) {
    if (v == null) {
      throw new IllegalArgumentException(name + " needs a value");
    }
    return v;
  }
}
