package io.allot.bench;

import io.allot.bench.AssignRow.Churn;
import io.allot.bench.AssignRow.Measured;
import io.allot.bench.AssignRow.Move;
import io.allot.bench.Repeats.Timed;
import io.allot.core.assign.Assigner;
import io.allot.core.assign.Changes;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The assignment simulator behind {@code bench assign}: plain Java, no JMH. For every strategy (the built-in ones
 * and two baselines, {@code modulo} and {@code naive-rendezvous}) and every cell (N units, M members) of a grid it
 * measures, in one process:
 *
 * <ul>
 *   <li><b>max/ideal</b>: worst member load over its fair share {@code N · w / W} (weights are all 1, so the ideal
 *       is N / M), and <b>max-ceil</b>: worst {@code load − ceil(N · w / W)} (0 or less: within the balance bound);
 *   <li><b>leave/opt</b>, <b>join/opt</b>: units moved when the middle member (in byte order) leaves, or member
 *       {@value Scenario#JOINER} joins, divided by the optimum, the fewest moves that realise the new loads ({@code
 *       Σ max(0, load_before − load_after)}). A unit moved is a unit present before and after whose owner changed;
 *   <li><b>repl%</b>, <b>add%</b>, <b>rm%</b>: percentage of the OTHER units (present before and after) that moved
 *       when 1 % of the units are replaced, added, or removed;
 *   <li><b>ns/unit</b> of a full assignment, and its ratio to {@code modulo} at the same (N, M);
 *   <li>the time of {@link Assigner#update} with the matching {@link Changes} hint for the leave, the join, the
 *       replace, the add and the remove (the previous table is the full assignment, its owner index already built, as it would be in a
 *       running server);
 *   <li><b>upd=full</b>: whether those updates equal {@code assign(members', units', previous)}, as the interface
 *       requires ({@code n/a} for strategies without an incremental form);
 *   <li>the wall time of the whole row.
 * </ul>
 *
 * Each strategy is warmed up first (rounds of every operation at N = 20,000, M = 10: at least three, and for at least
 * a second); each operation is then timed several times and the median is reported ({@link Repeats}): at least 7
 * runs at N ≤ 10^4, 5 at N ≤ 10^5, 3 above, or exactly {@code --repeat} times. A strategy that throws (or returns
 * an invalid table) gets {@code error: <message>} in its row; the others go on.
 */
public final class AssignRunner {
  private AssignRunner() {}

  /** Updates are checked against a full assign only if one full assign takes at most this. */
  static final long CHECK_LIMIT_NANOS = 5_000_000_000L;

  private static final int WARMUP_UNITS = 20_000; // above 4,096: the linear sorts of balanced warm up too
  private static final int WARMUP_MEMBERS = 10;
  private static final int WARMUP_ROUNDS = 3;

  /**
   * Minimum warm-up time per strategy: long enough for C2 to finish compiling the hot loops even on a busy machine
   * (with a round cap, cheap strategies were sometimes timed before that). Tests lower it.
   */
  static volatile long warmupMillis = 1_000;

  /**
   * Runs the benchmark with the strategies of {@link Strategies#byName} and prints the report ({@link
   * AssignReport#render()}) to {@code out}.
   *
   * @param out where the report goes; null to print nothing
   * @param progress where progress lines go (stderr); null for silence
   */
  public static AssignReport run(AssignOptions options, PrintStream out, PrintStream progress) {
    AssignReport r = run(options, Strategies::byName, progress == null ? s -> {} : progress::println);
    if (out != null) {
      out.print(r.render());
      out.flush();
    }
    return r;
  }

  /**
   * Runs the benchmark.
   *
   * @param strategies makes the assigner for a name of {@link AssignOptions#strategies()} (and for {@code modulo},
   *     always measured for the ratio)
   * @param progress receives progress lines
   */
  public static AssignReport run(
      AssignOptions options, Function<String, Assigner> strategies, Consumer<String> progress) {
    long start = System.nanoTime();
    List<String> names = options.strategies();
    Map<String, Assigner> assigners = new HashMap<>();
    for (String name : names) {
      assigners.put(name, strategies.apply(name));
    }
    assigners.computeIfAbsent(ModuloAssigner.NAME, strategies);
    Assigner modulo = assigners.get(ModuloAssigner.NAME);

    List<String> warm = new ArrayList<>(names);
    if (!warm.contains(ModuloAssigner.NAME)) {
      warm.add(0, ModuloAssigner.NAME);
    }
    for (String name : warm) {
      warmUp(name, assigners.get(name), progress);
    }

    List<AssignRow> rows = new ArrayList<>();
    List<AssignOptions.Cell> cells = options.cells();
    int total = cells.size() * names.size();
    int done = 0;
    List<String> units = List.of();
    for (AssignOptions.Cell c : cells) {
      int n = c.n();
      int m = c.m();
      if (units.size() != n) {
        units = Scenario.units(n);
      }
      Scenario sc = Scenario.of(units, m);
      int reps = options.repeat() > 0 ? options.repeat() : n <= 10_000 ? 7 : n <= 100_000 ? 5 : 3;
      boolean budgeted = options.repeat() == 0;
      // modulo first: every row's full time is compared to it
      Map<String, AssignRow> cell = new HashMap<>();
      double moduloNanos;
      if (names.contains(ModuloAssigner.NAME)) {
        progress.accept(String.format(Locale.ROOT, "[%d/%d] %s N=%d M=%d", ++done, total, ModuloAssigner.NAME, n, m));
        AssignRow r = measure(modulo, ModuloAssigner.NAME, sc, reps, budgeted, Double.NaN, progress);
        cell.put(ModuloAssigner.NAME, r);
        moduloNanos = r.ok() ? r.measured().fullNanos() : Double.NaN;
      } else {
        moduloNanos = Repeats.time(() -> modulo.assign(sc.members(), sc.units()), reps, budgeted).medianNanos();
      }
      for (String name : names) {
        if (!name.equals(ModuloAssigner.NAME)) {
          progress.accept(String.format(Locale.ROOT, "[%d/%d] %s N=%d M=%d", ++done, total, name, n, m));
          cell.put(name, measure(assigners.get(name), name, sc, reps, budgeted, moduloNanos, progress));
        }
      }
      for (String name : names) {
        rows.add(cell.get(name));
      }
    }
    return new AssignReport(options, rows, AssignReport.Environment.current(), (System.nanoTime() - start) / 1e9);
  }

  /** A few small rounds of every operation; a failure is reported and the strategy's rows will say it again. */
  private static void warmUp(String name, Assigner a, Consumer<String> progress) {
    Scenario small = Scenario.of(WARMUP_UNITS, WARMUP_MEMBERS);
    progress.accept("warming up " + name);
    try {
      long t0 = System.nanoTime();
      long warmupNanos = warmupMillis * 1_000_000L;
      for (int i = 0; i < WARMUP_ROUNDS || System.nanoTime() - t0 < warmupNanos; i++) {
        Table t = a.assign(small.members(), small.units());
        a.update(t, small.membersAfterLeave(), small.units(), small.leaveChanges());
        a.update(t, small.membersAfterJoin(), small.units(), small.joinChanges());
        a.update(t, small.members(), small.unitsAfterChurn(), small.churnChanges());
        a.update(t, small.members(), small.unitsAfterAdd(), small.addChanges());
        a.update(t, small.members(), small.unitsAfterRemove(), small.removeChanges());
      }
    } catch (RuntimeException | Error e) {
      progress.accept("  " + name + " fails during warm-up: " + message(e));
    }
  }

  /**
   * Measures one row; never throws for the strategy's failures.
   *
   * @param moduloNanos {@code modulo}'s full time at this cell; NaN when measuring {@code modulo} itself
   */
  private static AssignRow measure(
      Assigner a, String name, Scenario sc, int reps, boolean budgeted, double moduloNanos, Consumer<String> progress) {
    RowRun row = new RowRun(a, name, sc, reps, budgeted, progress);
    long start = System.nanoTime();
    AssignRow result;
    System.gc();
    try {
      Timed full = row.time("full assign", () -> a.assign(sc.members(), sc.units()));
      Table before = full.last();
      Metrics.validate(before, sc.members(), sc.units());
      double maxOverIdeal = Metrics.maxOverIdeal(before, sc.members());
      long maxOverCeil = Metrics.maxOverCeil(before, sc.members());
      before.ownerIndex(); // built once, as a running server would have it

      boolean incremental = Strategies.hasIncrementalUpdate(a);
      row.check = incremental && full.medianNanos() <= CHECK_LIMIT_NANOS;
      row.phase = "leave";
      Move leave = row.move(before, sc.membersAfterLeave(), sc.units(), sc.leaveChanges());
      row.phase = "join";
      Move join = row.move(before, sc.membersAfterJoin(), sc.units(), sc.joinChanges());
      row.phase = "churn";
      Timed churned = row.update(before, sc.members(), sc.unitsAfterChurn(), sc.churnChanges());
      Churn churn = new Churn(
          sc.churnRemoved().size(), sc.churnSurvivors(), Metrics.moved(before, churned.last()), churned.medianNanos());
      row.phase = "add";
      Timed grown = row.update(before, sc.members(), sc.unitsAfterAdd(), sc.addChanges());
      Churn added = new Churn(sc.churnAdded().size(), sc.n(), Metrics.moved(before, grown.last()), grown.medianNanos());
      row.phase = "remove";
      Timed shrunk = row.update(before, sc.members(), sc.unitsAfterRemove(), sc.removeChanges());
      Churn removed = new Churn(
          sc.churnRemoved().size(), sc.churnSurvivors(), Metrics.moved(before, shrunk.last()), shrunk.medianNanos());

      String check = !incremental ? "n/a"
          : !row.check ? "skipped"
          : row.differs.isEmpty() ? "ok"
          : "differs:" + String.join(",", row.differs);
      double modulo = Double.isNaN(moduloNanos) ? full.medianNanos() : moduloNanos;
      Measured measured = new Measured(maxOverIdeal, maxOverCeil, full.medianNanos(), full.samples(), modulo, leave,
          join, churn, added, removed, row.updateSamples, incremental, check);
      result = AssignRow.ok(name, sc.n(), sc.m(), measured, (System.nanoTime() - start) / 1e9);
    } catch (RuntimeException | Error e) {
      if (e instanceof VirtualMachineError && !(e instanceof OutOfMemoryError) && !(e instanceof StackOverflowError)) {
        throw e;
      }
      result = AssignRow.failed(name, sc.n(), sc.m(), message(e), row.phase, (System.nanoTime() - start) / 1e9);
    }
    progress.accept(String.format(Locale.ROOT, "  %s N=%d M=%d: %s in %.2f s", name, sc.n(), sc.m(),
        result.ok() ? "done" : "error (" + result.errorPhase() + "): " + result.error(), result.totalSeconds()));
    return result;
  }

  /**
   * The operations of one row: timing, validation, the update-equals-full check. Used by one thread, the measuring
   * one; its mutable fields are confined to it.
   */
  private static final class RowRun {
    private final Assigner a;
    private final String name;
    private final Scenario sc;
    private final int reps;
    private final boolean budgeted;
    private final Consumer<String> progress;
    /** The phase running, for the error row: full, leave, join, churn, add or remove. */
    String phase = "full";
    /** Whether updates are compared with a full assignment. */
    boolean check;
    /** The phases whose update differed from a full assignment. */
    final List<String> differs = new ArrayList<>();
    /** The fewest timed runs of an update so far. */
    int updateSamples = Integer.MAX_VALUE;

    RowRun(Assigner a, String name, Scenario sc, int reps, boolean budgeted, Consumer<String> progress) {
      this.a = a;
      this.name = name;
      this.sc = sc;
      this.reps = reps;
      this.budgeted = budgeted;
      this.progress = progress;
    }

    /** Times {@code op}, and says so on the progress stream if it is slow (a median of a second or more). */
    Timed time(String what, Supplier<Table> op) {
      Timed t = Repeats.time(op, reps, budgeted);
      if (t.medianNanos() >= 1e9) {
        progress.accept(String.format(Locale.ROOT, "  %s N=%d M=%d: %s median %.0f ms over %d run%s", name, sc.n(),
            sc.m(), what, t.medianNanos() / 1e6, t.samples(), t.samples() == 1 ? "" : "s"));
      }
      return t;
    }

    /** The units a member change moved, against the optimum. */
    Move move(Table before, Collection<Member> members, List<String> units, Changes changes) {
      Timed t = update(before, members, units, changes);
      return new Move(Metrics.moved(before, t.last()), Metrics.optimum(before, t.last()), t.medianNanos());
    }

    /**
     * Times {@code update(before, members, units, changes)}, validates its table, and
     * if {@link #check} notes the phase in {@link #differs} when the table is not the full assignment of the same
     * inputs.
     */
    Timed update(Table before, Collection<Member> members, List<String> units, Changes changes) {
      Timed t = time(phase + " update", () -> a.update(before, members, units, changes));
      Metrics.validate(t.last(), members, units);
      if (check && !t.last().equals(a.assign(members, units, before))) {
        differs.add(phase);
      }
      updateSamples = Math.min(updateSamples, t.samples());
      return t;
    }
  }

  private static String message(Throwable e) {
    String msg = e.getMessage();
    return msg == null || msg.isBlank() ? e.getClass().getName() : msg;
  }
}
