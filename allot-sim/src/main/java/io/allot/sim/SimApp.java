package io.allot.sim;

import io.allot.worker.StopReason;
import io.allot.worker.UnitListener;
import io.allot.worker.UnitStart;
import io.allot.worker.UnitStop;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The application of one member process, as {@code UnitRunner} runs it: a handler per unit from its {@link UnitStart}
 * until it returns, then the confirmation (or, for a handler that returned on its own, the release) naming the run's
 * token. A later run of a unit waits for the earlier one in the same process. A handler returns:
 * <ul>
 *   <li>after a {@code REASSIGNED}, {@code RELEASED} or {@code SHUTDOWN} stop: after a random time (mostly short,
 *   sometimes longer than the shutdown grace);</li>
 *   <li>once its lease is no longer valid (the deadline passed, a fence, {@code LEASE_LOST}): within the fence margin,
 *   its documented budget, often close to the end of it;</li>
 *   <li>at once when the process is killed;</li>
 *   <li>on its own ({@link #releaseOne()}): the runner then releases the unit.</li>
 * </ul>
 * Some confirmations are made late (an application confirming from another thread), which only a confirmation naming
 * its run's token makes harmless. The handlers' runs are recorded in the {@link Ledger}.
 *
 * <p>Not thread-safe (confined to the simulation's thread).
 */
final class SimApp implements UnitListener {
  private final Sim sim;
  private final Trace trace;
  private final Ledger ledger;
  private final SimProcess member;
  private final boolean confirmByUnitOnly;
  private final long budgetNanos;
  private final double lateConfirms;
  private final long maxConfirmLagNanos;
  /** Unit -> its latest run in this process (UnitRunner.runs). */
  private final Map<String, Ledger.Run> runs = new LinkedHashMap<>();
  /** Every run whose handler runs now, in start order (a run waiting for its predecessor is not in it). */
  private final Set<Ledger.Run> live = new LinkedHashSet<>();

  SimApp(Sim sim, Trace trace, Ledger ledger, SimProcess member, SimConfig config) {
    this.sim = sim;
    this.trace = trace;
    this.ledger = ledger;
    this.member = member;
    this.budgetNanos = config.fenceMargin().toNanos();
    this.lateConfirms = config.lateConfirms();
    this.maxConfirmLagNanos = config.maxConfirmLag().toNanos();
    this.confirmByUnitOnly = config.hole() == Hole.CONFIRM_BY_UNIT;
  }

  @Override
  public void onStart(UnitStart start) {
    trace.add(member.name(), "onStart " + start.unit() + "#" + member.rel(start.token()));
    if (!member.leaseValid()) {
      throw ledger.fail(new SimViolation("4 valid-lease", member.name() + " delivers the start of " + start.unit()
          + " with an invalid lease"));
    }
    Ledger.Run previous = runs.get(start.unit());
    Ledger.Run run = new Ledger.Run(start.unit(), member.name(), member.id(), start.token(), member.generation());
    runs.put(start.unit(), run);
    if (previous != null && !previous.finished) {
      previous.next = run; // a run of a unit never overlaps an earlier run of it in this process
      trace.add(member.name(), "run of " + start.unit() + " waits for the previous one");
    } else {
      begin(run);
    }
  }

  /** The handler starts, unless a stop came first or the lease is no longer valid (then it never runs). */
  private void begin(Ledger.Run run) {
    if (run.reason != null || member.generation() != run.generation || !member.leaseValid()) {
      returned(run);
      return;
    }
    ledger.begin(run);
    live.add(run);
    trace.add(member.name(), "runs " + run.unit);
  }

  @Override
  public void onStop(UnitStop stop) {
    trace.add(member.name(), "onStop " + stop.unit() + "#" + member.rel(stop.token()) + " " + stop.reason());
    Ledger.Run run = runs.get(stop.unit());
    if (run != null && run.token == stop.token() && requestStop(run, stop.reason())) {
      return; // the runner confirms when the handler returns
    }
    if (stop.reason().awaitsConfirmation()) {
      confirm(stop.unit(), stop.token()); // that run does not run any more
    }
  }

  /** The lease is no longer valid (deadline passed, fence, shutdown): every handler must stop now. */
  void onLeaseInvalid() {
    for (Ledger.Run run : List.copyOf(live)) {
      returnBy(run, sim.now() + leaseStopNanos());
    }
  }

  /** The process died: every handler stops now. */
  void killed() {
    live.forEach(ledger::end);
    live.clear();
    runs.clear();
  }

  /** A handler returns on its own (the unit is done, or failed): the runner releases it. False if none runs. */
  boolean releaseOne() {
    List<Ledger.Run> candidates = new ArrayList<>();
    for (Ledger.Run run : live) {
      if (run.reason == null) {
        candidates.add(run);
      }
    }
    if (candidates.isEmpty()) {
      return false;
    }
    Ledger.Run run = candidates.get(sim.random().nextInt(candidates.size()));
    trace.add(member.name(), "handler of " + run.unit + " returns on its own");
    returnBy(run, sim.now());
    return true;
  }

  /** {@code Run.requestStop}: false if the run had already returned. */
  private boolean requestStop(Ledger.Run run, StopReason why) {
    if (run.finished) {
      return false;
    }
    if (run.reason == null) {
      run.reason = why;
    }
    if (run.active()) {
      returnBy(run, sim.now() + (why == StopReason.LEASE_LOST ? leaseStopNanos() : gracefulStopNanos()));
    }
    return true; // a run still waiting for its predecessor sees the stop when its turn comes, and never runs
  }

  /** The handler returns at {@code at} at the latest. */
  private void returnBy(Ledger.Run run, long at) {
    if (run.returns != null && run.returns.at() <= at) {
      return;
    }
    if (run.returns != null) {
      run.returns.cancel();
    }
    run.returns = sim.at(at, member.appActor(), () -> returned(run));
  }

  /** The handler returned: the next run of the unit may start; then the runner confirms or releases. */
  private void returned(Ledger.Run run) {
    boolean ran = live.remove(run);
    ledger.end(run);
    runs.remove(run.unit, run);
    if (ran) {
      trace.add(member.name(), "stopped " + run.unit + " (" + run.reason + ")");
    }
    if (run.next != null) {
      begin(run.next);
    }
    StopReason why = run.reason;
    // UnitRunner.finish: a call into the SDK (held back while the process is paused); sometimes made late
    long lag = why != null && why.awaitsConfirmation() ? confirmLagNanos() : 0;
    sim.after(lag, member, () -> {
      if (why != null && why.awaitsConfirmation()) {
        confirm(run.unit, run.token);
      } else if (why == null && member.generation() == run.generation) {
        boolean r = member.divider().release(run.unit, tokenToName(run.unit, run.token, "release of an earlier run"));
        trace.add(member.name(), "release " + run.unit + "#" + member.rel(run.token) + " -> " + r);
      }
    });
  }

  /** {@code Divider.confirmStop} naming the run's token (with {@link Hole#CONFIRM_BY_UNIT}, whatever run is held). */
  private void confirm(String unit, long token) {
    boolean ok = member.divider().confirmStop(unit, tokenToName(unit, token, "confirmation of an earlier run"));
    trace.add(member.name(), "confirmStop " + unit + "#" + member.rel(token) + " -> " + ok);
  }

  /**
   * The token the application names: its run's. Hole 5 (the SDK applied a confirmation or release to whatever run of
   * the unit it held) is re-expressed here: the application names the token the SDK holds for the unit, which is
   * what the unfixed SDK did with any token.
   */
  private long tokenToName(String unit, long token, String countIfEarlier) {
    Long held = member.divider().assigned().get(unit);
    if (held != null && held != token) {
      sim.count(countIfEarlier);
    }
    return confirmByUnitOnly && held != null ? held : token;
  }

  /** How late the runner confirms a stop: mostly at once, sometimes later (up to {@code maxConfirmLag}). */
  private long confirmLagNanos() {
    return sim.chance(lateConfirms) ? sim.uniform(0, maxConfirmLagNanos) : 0;
  }

  /** How long a handler takes to stop once its lease is gone: within the fence margin, often near its end. */
  private long leaseStopNanos() {
    double r = sim.random().nextDouble();
    if (r < 0.1) {
      return 0;
    }
    return r < 0.5 ? sim.uniform(0, budgetNanos) : sim.uniform(budgetNanos * 8 / 10, budgetNanos);
  }

  /** How long a handler takes to stop after a stop that waits for its confirmation. */
  private long gracefulStopNanos() {
    double r = sim.random().nextDouble();
    if (r < 0.7) {
      return sim.uniform(0, 50_000_000L);
    }
    return r < 0.95 ? sim.uniform(50_000_000L, 800_000_000L) : sim.uniform(800_000_000L, 2_500_000_000L);
  }
}
