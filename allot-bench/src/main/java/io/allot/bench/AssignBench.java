package io.allot.bench;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Changes;
import io.allot.core.assign.Table;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The assignment simulator behind {@code allot bench assign}: plain Java, no JMH. For every
 * strategy (the built-in ones and two baselines, {@code modulo} and {@code naive-rendezvous}) and
 * every cell (N units, M members) of a grid it measures, in one process:
 *
 * <ul>
 *   <li><b>max/ideal</b>: worst member load over its fair share {@code N · w / W} (weights are all
 *       1, so the ideal is N / M);
 *   <li><b>leave/opt</b>, <b>join/opt</b>: units moved when the middle member (in byte order)
 *       leaves, or member {@value Scenario#JOINER} joins, divided by the optimum, the fewest moves
 *       that realise the new loads ({@code Σ max(0, load_before − load_after)}). A unit moved is a
 *       unit present before and after whose owner changed;
 *   <li><b>churn%</b>: percentage of the OTHER units (present before and after) that moved when
 *       1 % of the units are replaced;
 *   <li><b>ns/unit</b> of a full assignment, and its ratio to {@code modulo} at the same (N, M);
 *   <li>the time of {@link Assigner#update} with the matching {@link Changes} hint for the leave,
 *       the join and the churn (the previous table is the full assignment, its owner index
 *       already built, as it would be in a running server);
 *   <li><b>upd=full</b>: whether those updates equal {@code assign(members', units', previous)}, as
 *       the interface requires ({@code n/a} for strategies without an incremental form);
 *   <li>the wall time of the whole row.
 * </ul>
 *
 * Each strategy is warmed up first (rounds of every operation at N = 2000, M = 10: at least three,
 * and for at least a second); each operation is then timed several times and the median is
 * reported: at least 7 runs at N ≤ 10^4, 5 at N ≤ 10^5, 3 above, more (up to {@value
 * #MAX_AUTO_REPS}) until the runs add up to {@value #MIN_MILLIS} ms, fewer (down to one) if they
 * pass {@value #BUDGET_SECONDS} s; or exactly {@code --repeat} times. A strategy that throws (or returns an
 * invalid table) gets {@code error: <message>} in its row; the others go on.
 *
 * <p>Use from code: {@link #run(Options, PrintStream, PrintStream)}; from the command line: {@code
 * java -cp allot-bench-<v>-jmh.jar io.allot.bench.AssignBench --quick} or {@code allot bench assign}.
 */
public final class AssignBench {
  private AssignBench() {}

  /** Unit counts of the full grid. */
  public static final List<Integer> SIZES = List.of(1_000, 100_000, 1_000_000);
  /** Member counts of the full grid. */
  public static final List<Integer> MEMBERS = List.of(3, 10, 100, 1_000);
  /** Unit counts with {@code --quick}. */
  public static final List<Integer> QUICK_SIZES = List.of(1_000, 10_000);
  /** Member counts with {@code --quick}. */
  public static final List<Integer> QUICK_MEMBERS = List.of(3, 10, 100);

  /** Upper limits on the options, to fail fast instead of running out of memory. */
  public static final int MAX_UNITS = 20_000_000;

  public static final int MAX_MEMBERS = 100_000;
  public static final int MAX_REPEAT = 1_000;

  /** In automatic mode, stop repeating an operation once its runs took this long together. */
  static final int BUDGET_SECONDS = 10;

  /** In automatic mode, repeat a cheap operation until its runs took this long together... */
  static final int MIN_MILLIS = 500;

  /** ...or it ran this many times. */
  static final int MAX_AUTO_REPS = 25;

  /** Updates are checked against a full assign only if one full assign takes at most this. */
  static final long CHECK_LIMIT_NANOS = 5_000_000_000L;

  private static final int WARMUP_UNITS = 2_000;
  private static final int WARMUP_MEMBERS = 10;
  private static final int WARMUP_ROUNDS = 3;

  /**
   * Minimum warm-up time per strategy: long enough for C2 to finish compiling the hot loops even on
   * a busy machine (with a round cap, cheap strategies were sometimes timed before that). Tests
   * lower it.
   */
  static volatile long warmupMillis = 1_000;

  static final String USAGE =
      "usage: AssignBench [--quick] [--json] [--strategies a,b] [--sizes 1000,100000] [--members 3,10] [--repeat K]\n"
          + "  --quick         small grid: N in "
          + QUICK_SIZES
          + ", M in "
          + QUICK_MEMBERS
          + " (default: N in "
          + SIZES
          + ", M in "
          + MEMBERS
          + ")\n"
          + "  --json          print a JSON document instead of the table\n"
          + "  --strategies    comma-separated, from: "
          + String.join(", ", Strategies.all())
          + " (default: all)\n"
          + "  --sizes         unit counts N, comma-separated (1000, 1_000, 1e3 and 10^3 all work)\n"
          + "  --members       member counts M, comma-separated, each >= 2\n"
          + "  --repeat        timed runs of each operation (default: by size, median reported)\n";

  // ------------------------------------------------------------------------------------ options

  /**
   * What to run. Empty lists mean the defaults (all strategies; the full or quick grid); {@code
   * repeat} 0 means "by size".
   *
   * @throws IllegalArgumentException naming the bad option
   */
  public record Options(
      boolean quick, boolean json, List<String> strategies, List<Integer> sizes, List<Integer> members, int repeat) {

    public Options {
      strategies = strategies == null || strategies.isEmpty() ? Strategies.all() : distinctStrategies(strategies);
      sizes = sizes == null || sizes.isEmpty() ? (quick ? QUICK_SIZES : SIZES) : distinct(sizes);
      members = members == null || members.isEmpty() ? (quick ? QUICK_MEMBERS : MEMBERS) : distinct(members);
      for (int n : sizes) {
        if (n < 1 || n > MAX_UNITS) {
          throw new IllegalArgumentException("--sizes: " + n + " is out of range; each size must be between 1 and " + MAX_UNITS);
        }
      }
      for (int m : members) {
        if (m < 2 || m > MAX_MEMBERS) {
          throw new IllegalArgumentException(
              "--members: " + m + " is out of range; each member count must be between 2 (one of them leaves) and " + MAX_MEMBERS);
        }
      }
      if (repeat < 0 || repeat > MAX_REPEAT) {
        throw new IllegalArgumentException("--repeat: " + repeat + " is out of range; it must be between 1 and " + MAX_REPEAT);
      }
    }

    /** The full grid, all strategies, table output. */
    public static Options defaults() {
      return new Options(false, false, List.of(), List.of(), List.of(), 0);
    }

    /** The quick grid, all strategies, table output. */
    public static Options quickDefaults() {
      return new Options(true, false, List.of(), List.of(), List.of(), 0);
    }

    public static Builder builder() {
      return new Builder();
    }

    /**
     * Parses command-line arguments ({@code --opt value} or {@code --opt=value}).
     *
     * @throws IllegalArgumentException naming the bad argument
     */
    public static Options parse(String... args) {
      Builder b = builder();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        String name = a;
        String value = null;
        int eq = a.indexOf('=');
        if (a.startsWith("--") && eq > 0) {
          name = a.substring(0, eq);
          value = a.substring(eq + 1);
        }
        switch (name) {
          case "--quick", "--json" -> {
            if (value != null) {
              throw new IllegalArgumentException(name + " takes no value");
            }
            if (name.equals("--quick")) {
              b.quick(true);
            } else {
              b.json(true);
            }
          }
          case "--strategies", "--sizes", "--members", "--repeat" -> {
            if (value == null) {
              if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                throw new IllegalArgumentException(name + " needs a value");
              }
              value = args[++i];
            }
            switch (name) {
              case "--strategies" -> b.strategies(value);
              case "--sizes" -> b.sizes(value);
              case "--members" -> b.members(value);
              default -> b.repeat(parseInt("--repeat", value));
            }
          }
          default -> throw new IllegalArgumentException("unknown option '" + a + "'");
        }
      }
      return b.build();
    }

    private static List<String> distinctStrategies(List<String> names) {
      LinkedHashSet<String> out = new LinkedHashSet<>();
      for (String s : names) {
        String n = Strategies.normalise(s);
        if (n.isEmpty()) {
          throw new IllegalArgumentException("--strategies: empty strategy name");
        }
        if (!Strategies.known(n)) {
          throw new IllegalArgumentException(
              "--strategies: unknown strategy '" + s.trim() + "'; choose from " + String.join(", ", Strategies.all()));
        }
        out.add(n);
      }
      return List.copyOf(out);
    }

    private static List<Integer> distinct(List<Integer> xs) {
      return List.copyOf(new LinkedHashSet<>(xs));
    }
  }

  /** Builds {@link Options}, taking list options as comma-separated text. */
  public static final class Builder {
    private boolean quick;
    private boolean json;
    private final List<String> strategies = new ArrayList<>();
    private final List<Integer> sizes = new ArrayList<>();
    private final List<Integer> members = new ArrayList<>();
    private int repeat;

    private Builder() {}

    public Builder quick(boolean quick) {
      this.quick = quick;
      return this;
    }

    public Builder json(boolean json) {
      this.json = json;
      return this;
    }

    /** Adds strategies: {@code "rendezvous,modulo"}. */
    public Builder strategies(String csv) {
      strategies.addAll(split("--strategies", csv));
      return this;
    }

    /** Adds unit counts: {@code "1000,1e5"}. */
    public Builder sizes(String csv) {
      for (String s : split("--sizes", csv)) {
        sizes.add(parseInt("--sizes", s));
      }
      return this;
    }

    /** Adds member counts: {@code "3,10"}. */
    public Builder members(String csv) {
      for (String s : split("--members", csv)) {
        members.add(parseInt("--members", s));
      }
      return this;
    }

    /** Timed runs per operation; 0 for "by size". */
    public Builder repeat(int repeat) {
      if (repeat < 1) {
        throw new IllegalArgumentException("--repeat: " + repeat + " is out of range; it must be between 1 and " + MAX_REPEAT);
      }
      this.repeat = repeat;
      return this;
    }

    public Options build() {
      return new Options(quick, json, strategies, sizes, members, repeat);
    }

    private static List<String> split(String option, String csv) {
      if (csv == null || csv.isBlank()) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      List<String> out = new ArrayList<>();
      for (String s : csv.split(",", -1)) {
        if (s.isBlank()) {
          throw new IllegalArgumentException(option + ": empty item in '" + csv + "'");
        }
        out.add(s.trim());
      }
      return out;
    }
  }

  /**
   * Parses a whole number: {@code 1000}, {@code 1_000}, {@code 1e3} or {@code 10^3}.
   *
   * @throws IllegalArgumentException naming the option
   */
  static int parseInt(String option, String text) {
    String s = text.trim().replace("_", "");
    try {
      long v;
      int caret = s.indexOf('^');
      int e = s.toLowerCase(Locale.ROOT).indexOf('e');
      if (caret > 0) {
        v = pow(Long.parseLong(s.substring(0, caret)), Integer.parseInt(s.substring(caret + 1)));
      } else if (e > 0) {
        v = Long.parseLong(s.substring(0, e)) * pow(10, Integer.parseInt(s.substring(e + 1)));
      } else {
        v = Long.parseLong(s);
      }
      if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
        throw new IllegalArgumentException(option + ": " + text.trim() + " is too large");
      }
      return (int) v;
    } catch (NumberFormatException | ArithmeticException x) {
      throw new IllegalArgumentException(option + ": '" + text.trim() + "' is not a whole number");
    }
  }

  private static long pow(long base, int exp) {
    if (exp < 0 || exp > 18) {
      throw new ArithmeticException("exponent");
    }
    long r = 1;
    for (int i = 0; i < exp; i++) {
      r = Math.multiplyExact(r, base);
    }
    return r;
  }

  // ---------------------------------------------------------------------------------- results

  /** One strategy at one (N, M). Times in nanoseconds internally; accessors convert. */
  public static final class Row {
    private final String strategy;
    private final int n;
    private final int m;
    String error;
    String errorPhase;
    double maxOverIdeal = Double.NaN;
    long leaveMoved = -1;
    long leaveOptimum = -1;
    long joinMoved = -1;
    long joinOptimum = -1;
    int churnReplaced = -1;
    int churnSurvivors = -1;
    long churnMoved = -1;
    double fullNanos = Double.NaN;
    int fullSamples;
    double moduloNanos = Double.NaN;
    double leaveNanos = Double.NaN;
    double joinNanos = Double.NaN;
    double churnNanos = Double.NaN;
    int updateSamples;
    boolean incremental;
    String check = "-";
    long totalNanos;

    Row(String strategy, int n, int m) {
      this.strategy = strategy;
      this.n = n;
      this.m = m;
    }

    public String strategy() {
      return strategy;
    }

    public int n() {
      return n;
    }

    public int m() {
      return m;
    }

    /** True if the strategy completed every operation. */
    public boolean ok() {
      return error == null;
    }

    /** The message of what the strategy threw (or why its table was invalid), null if it did not. */
    public String error() {
      return error;
    }

    /** The operation during which the error happened: full, leave, join or churn. */
    public String errorPhase() {
      return errorPhase;
    }

    public double maxOverIdeal() {
      return maxOverIdeal;
    }

    public long leaveMoved() {
      return leaveMoved;
    }

    public long leaveOptimum() {
      return leaveOptimum;
    }

    public double leaveRatio() {
      return leaveMoved < 0 ? Double.NaN : Metrics.ratio(leaveMoved, leaveOptimum);
    }

    public long joinMoved() {
      return joinMoved;
    }

    public long joinOptimum() {
      return joinOptimum;
    }

    public double joinRatio() {
      return joinMoved < 0 ? Double.NaN : Metrics.ratio(joinMoved, joinOptimum);
    }

    /** Units replaced by the churn. */
    public int churnReplaced() {
      return churnReplaced;
    }

    /** Units present before and after the churn. */
    public int churnSurvivors() {
      return churnSurvivors;
    }

    /** Of {@link #churnSurvivors()}, how many changed owner. */
    public long churnMoved() {
      return churnMoved;
    }

    public double churnMovedPercent() {
      return churnMoved < 0 || churnSurvivors <= 0 ? Double.NaN : 100.0 * churnMoved / churnSurvivors;
    }

    /** Median time of a full assignment per unit, ns. */
    public double fullNanosPerUnit() {
      return fullNanos / n;
    }

    /** Median full assignment time, ms. */
    public double fullMillis() {
      return fullNanos / 1e6;
    }

    /** Full assignment time over {@code modulo}'s at the same (N, M). */
    public double fullVsModulo() {
      return fullNanos / moduloNanos;
    }

    public int fullSamples() {
      return fullSamples;
    }

    public double leaveMillis() {
      return leaveNanos / 1e6;
    }

    public double joinMillis() {
      return joinNanos / 1e6;
    }

    public double churnMillis() {
      return churnNanos / 1e6;
    }

    public int updateSamples() {
      return updateSamples;
    }

    /** True if the strategy has its own {@link Assigner#update}. */
    public boolean incremental() {
      return incremental;
    }

    /**
     * {@code ok} if every update equalled the full assignment of the same inputs, {@code differs:
     * leave,...} if not, {@code n/a} for strategies without an incremental form, {@code skipped}
     * when a full assignment is too slow to repeat, {@code -} after an error.
     */
    public String check() {
      return check;
    }

    public double totalSeconds() {
      return totalNanos / 1e9;
    }

    @Override
    public String toString() {
      return strategy + " N=" + n + " M=" + m + (ok() ? "" : " error: " + error);
    }
  }

  /** Where the numbers were taken. */
  public record Environment(String jvm, String javaVersion, int cores, long maxHeapBytes, String gc) {
    static Environment current() {
      List<String> gcs = new ArrayList<>();
      for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
        gcs.add(b.getName());
      }
      return new Environment(
          System.getProperty("java.vm.name", "?") + " (" + System.getProperty("java.vm.vendor", "?") + ")",
          System.getProperty("java.runtime.version", System.getProperty("java.version", "?")),
          Runtime.getRuntime().availableProcessors(),
          Runtime.getRuntime().maxMemory(),
          String.join(", ", gcs));
    }

    @Override
    public String toString() {
      return "JVM "
          + jvm
          + " "
          + javaVersion
          + ", "
          + cores
          + (cores == 1 ? " core" : " cores")
          + ", max heap "
          + (maxHeapBytes / (1024 * 1024))
          + " MiB, GC "
          + gc;
    }
  }

  /** Everything one run measured. */
  public record Report(Options options, List<Row> rows, Environment environment, double totalSeconds) {
    public Report {
      rows = List.copyOf(rows);
    }

    /** The row of {@code strategy} at (n, m), if measured. */
    public Row row(String strategy, int n, int m) {
      for (Row r : rows) {
        if (r.strategy().equals(strategy) && r.n() == n && r.m() == m) {
          return r;
        }
      }
      throw new IllegalArgumentException("no row for " + strategy + " N=" + n + " M=" + m);
    }

    /** The report as {@link Options#json()} asks: JSON or the table. */
    public String render() {
      return options.json() ? json() : table();
    }

    /** The human table, then one line about the JVM. */
    public String table() {
      String[] head = {
        "strategy", "N", "M", "max/ideal", "leave/opt", "join/opt", "churn%", "ns/unit", "xmodulo",
        "leave ms", "join ms", "churn ms", "upd=full", "total s"
      };
      List<String[]> cells = new ArrayList<>();
      cells.add(head);
      for (Row r : rows) {
        if (!r.ok()) {
          cells.add(new String[] {r.strategy(), Integer.toString(r.n()), Integer.toString(r.m()), "error: " + r.error()});
          continue;
        }
        cells.add(
            new String[] {
              r.strategy(),
              Integer.toString(r.n()),
              Integer.toString(r.m()),
              fmt(r.maxOverIdeal(), 4),
              fmt(r.leaveRatio(), 4),
              fmt(r.joinRatio(), 4),
              fmt(r.churnMovedPercent(), 3),
              fmt(r.fullNanosPerUnit(), 1),
              fmt(r.fullVsModulo(), 2),
              fmt(r.leaveMillis(), 3),
              fmt(r.joinMillis(), 3),
              fmt(r.churnMillis(), 3),
              r.check(),
              fmt(r.totalSeconds(), 2)
            });
      }
      int[] width = new int[head.length];
      for (String[] row : cells) {
        if (row.length == head.length) {
          for (int i = 0; i < row.length; i++) {
            width[i] = Math.max(width[i], row[i].length());
          }
        } else {
          for (int i = 0; i < 3; i++) {
            width[i] = Math.max(width[i], row[i].length());
          }
        }
      }
      StringBuilder b = new StringBuilder();
      for (String[] row : cells) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < row.length; i++) {
          if (i > 0) {
            line.append("  ");
          }
          if (i == 0 || (i == 3 && row.length == 4)) {
            line.append(row[i]);
            if (i == 0) {
              line.append(" ".repeat(width[0] - row[0].length()));
            }
          } else {
            line.append(" ".repeat(Math.max(0, width[i] - row[i].length()))).append(row[i]);
          }
        }
        b.append(line.toString().stripTrailing()).append('\n');
      }
      b.append(environment)
          .append("; ")
          .append(rows.size())
          .append(" rows in ")
          .append(fmt(totalSeconds, 1))
          .append(" s\n");
      return b.toString();
    }

    /** The report as a JSON document. */
    public String json() {
      Json j = new Json().beginObject();
      j.field("benchmark", "allot bench assign");
      j.key("options").beginObject();
      j.field("quick", options.quick());
      j.key("strategies").beginArray();
      options.strategies().forEach(j::value);
      j.endArray();
      j.key("sizes").beginArray();
      options.sizes().forEach(j::value);
      j.endArray();
      j.key("members").beginArray();
      options.members().forEach(j::value);
      j.endArray();
      j.field("repeat", options.repeat() == 0 ? "auto" : Integer.toString(options.repeat()));
      j.endObject();
      j.key("environment").beginObject();
      j.field("jvm", environment.jvm());
      j.field("javaVersion", environment.javaVersion());
      j.field("cores", environment.cores());
      j.field("maxHeapBytes", environment.maxHeapBytes());
      j.field("gc", environment.gc());
      j.endObject();
      j.field("totalSeconds", totalSeconds, 3);
      j.key("rows").beginArray();
      for (Row r : rows) {
        j.beginObject();
        j.field("strategy", r.strategy());
        j.field("n", r.n());
        j.field("m", r.m());
        j.field("ok", r.ok());
        if (!r.ok()) {
          j.field("error", r.error());
          j.field("errorPhase", r.errorPhase());
        } else {
          j.field("maxOverIdeal", r.maxOverIdeal(), 6);
          j.key("leave").beginObject();
          j.field("moved", r.leaveMoved());
          j.field("optimum", r.leaveOptimum());
          j.field("ratio", r.leaveRatio(), 6);
          j.field("updateMs", r.leaveMillis(), 4);
          j.endObject();
          j.key("join").beginObject();
          j.field("moved", r.joinMoved());
          j.field("optimum", r.joinOptimum());
          j.field("ratio", r.joinRatio(), 6);
          j.field("updateMs", r.joinMillis(), 4);
          j.endObject();
          j.key("churn").beginObject();
          j.field("replaced", r.churnReplaced());
          j.field("others", r.churnSurvivors());
          j.field("othersMoved", r.churnMoved());
          j.field("othersMovedPercent", r.churnMovedPercent(), 6);
          j.field("updateMs", r.churnMillis(), 4);
          j.endObject();
          j.key("full").beginObject();
          j.field("medianMs", r.fullMillis(), 4);
          j.field("nsPerUnit", r.fullNanosPerUnit(), 3);
          j.field("vsModulo", r.fullVsModulo(), 4);
          j.field("samples", r.fullSamples());
          j.endObject();
          j.field("updateSamples", r.updateSamples());
          j.field("incremental", r.incremental());
          j.field("updateEqualsFull", r.check());
        }
        j.field("totalSeconds", r.totalSeconds(), 4);
        j.endObject();
      }
      j.endArray();
      j.endObject();
      return j + "\n";
    }
  }

  static String fmt(double v, int decimals) {
    if (Double.isNaN(v)) {
      return "-";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "inf" : "-inf";
    }
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  // -------------------------------------------------------------------------------------- run

  /**
   * Runs the benchmark and prints the report ({@link Report#render()}) to {@code out}.
   *
   * @param out where the report goes; null to print nothing
   * @param progress where progress lines go (stderr); null for silence
   */
  public static Report run(Options options, PrintStream out, PrintStream progress) {
    Report r = run(options, Strategies::byName, progress == null ? s -> {} : progress::println);
    if (out != null) {
      out.print(r.render());
      out.flush();
    }
    return r;
  }

  /**
   * Runs the benchmark.
   *
   * @param strategies makes the assigner for a name of {@link Options#strategies()} (and for
   *     {@code modulo}, always measured for the ratio)
   * @param progress receives progress lines
   */
  public static Report run(Options options, Function<String, Assigner> strategies, Consumer<String> progress) {
    long start = System.nanoTime();
    Map<String, Assigner> assigners = new HashMap<>();
    List<String> names = new ArrayList<>(options.strategies());
    for (String name : names) {
      assigners.put(name, strategies.apply(name));
    }
    Assigner modulo = assigners.containsKey(ModuloAssigner.NAME) ? assigners.get(ModuloAssigner.NAME) : strategies.apply(ModuloAssigner.NAME);

    // warm-up: a few small rounds of every operation
    Scenario small = Scenario.of(WARMUP_UNITS, WARMUP_MEMBERS);
    List<String> warm = new ArrayList<>(names);
    if (!warm.contains(ModuloAssigner.NAME)) {
      warm.add(0, ModuloAssigner.NAME);
    }
    for (String name : warm) {
      Assigner a = name.equals(ModuloAssigner.NAME) ? modulo : assigners.get(name);
      progress.accept("warming up " + name);
      try {
        long t0 = System.nanoTime();
        long warmupNanos = warmupMillis * 1_000_000L;
        for (int i = 0; i < WARMUP_ROUNDS || System.nanoTime() - t0 < warmupNanos; i++) {
          Table t = a.assign(small.members(), small.units());
          a.update(t, small.membersAfterLeave(), small.units(), small.leaveChanges());
          a.update(t, small.membersAfterJoin(), small.units(), small.joinChanges());
          a.update(t, small.members(), small.unitsAfterChurn(), small.churnChanges());
        }
      } catch (RuntimeException | Error e) {
        progress.accept("  " + name + " fails during warm-up: " + message(e));
      }
    }

    List<Row> rows = new ArrayList<>();
    int total = options.sizes().size() * options.members().size() * names.size();
    int done = 0;
    for (int n : options.sizes()) {
      List<String> units = Scenario.units(n);
      for (int m : options.members()) {
        Scenario sc = Scenario.of(units, m);
        int reps = options.repeat() > 0 ? options.repeat() : n <= 10_000 ? 7 : n <= 100_000 ? 5 : 3;
        boolean budgeted = options.repeat() == 0;
        // modulo first: every row's full time is compared to it
        Map<String, Row> cell = new HashMap<>();
        double moduloNanos;
        if (names.contains(ModuloAssigner.NAME)) {
          progress.accept(String.format(Locale.ROOT, "[%d/%d] %s N=%d M=%d", ++done, total, ModuloAssigner.NAME, n, m));
          Row r = measure(modulo, ModuloAssigner.NAME, sc, reps, budgeted, Double.NaN, progress);
          cell.put(ModuloAssigner.NAME, r);
          moduloNanos = r.fullNanos;
          r.moduloNanos = moduloNanos;
        } else {
          moduloNanos = time(() -> modulo.assign(sc.members(), sc.units()), reps, budgeted).median;
        }
        for (String name : names) {
          if (name.equals(ModuloAssigner.NAME)) {
            continue;
          }
          progress.accept(String.format(Locale.ROOT, "[%d/%d] %s N=%d M=%d", ++done, total, name, n, m));
          cell.put(name, measure(assigners.get(name), name, sc, reps, budgeted, moduloNanos, progress));
        }
        for (String name : names) {
          rows.add(cell.get(name));
        }
      }
    }
    return new Report(options, rows, Environment.current(), (System.nanoTime() - start) / 1e9);
  }

  /** Measures one row; never throws for the strategy's failures. */
  private static Row measure(
      Assigner a, String name, Scenario sc, int reps, boolean budgeted, double moduloNanos, Consumer<String> progress) {
    Row row = new Row(name, sc.n(), sc.m());
    row.moduloNanos = moduloNanos;
    row.incremental = Strategies.hasIncrementalUpdate(a);
    long start = System.nanoTime();
    String phase = "full";
    System.gc();
    try {
      Timed full = time(() -> a.assign(sc.members(), sc.units()), reps, budgeted);
      row.fullNanos = full.median;
      row.fullSamples = full.samples;
      note(progress, name, sc, "full assign", full);
      Table before = full.last;
      full.last = null;
      Metrics.validate(before, sc.members(), sc.units());
      row.maxOverIdeal = Metrics.maxOverIdeal(before, sc.members());
      before.ownerIndex(); // built once, as a running server would have it

      boolean check = row.incremental && full.median <= CHECK_LIMIT_NANOS;
      List<String> differs = new ArrayList<>();

      phase = "leave";
      Timed leave =
          time(() -> a.update(before, sc.membersAfterLeave(), sc.units(), sc.leaveChanges()), reps, budgeted);
      note(progress, name, sc, "leave update", leave);
      Metrics.validate(leave.last, sc.membersAfterLeave(), sc.units());
      row.leaveNanos = leave.median;
      row.leaveMoved = Metrics.moved(before, leave.last);
      row.leaveOptimum = Metrics.optimum(before, leave.last);
      if (check && !leave.last.equals(a.assign(sc.membersAfterLeave(), sc.units(), before))) {
        differs.add("leave");
      }
      leave.last = null;

      phase = "join";
      Timed join = time(() -> a.update(before, sc.membersAfterJoin(), sc.units(), sc.joinChanges()), reps, budgeted);
      note(progress, name, sc, "join update", join);
      Metrics.validate(join.last, sc.membersAfterJoin(), sc.units());
      row.joinNanos = join.median;
      row.joinMoved = Metrics.moved(before, join.last);
      row.joinOptimum = Metrics.optimum(before, join.last);
      if (check && !join.last.equals(a.assign(sc.membersAfterJoin(), sc.units(), before))) {
        differs.add("join");
      }
      join.last = null;

      phase = "churn";
      Timed churn =
          time(() -> a.update(before, sc.members(), sc.unitsAfterChurn(), sc.churnChanges()), reps, budgeted);
      note(progress, name, sc, "churn update", churn);
      Metrics.validate(churn.last, sc.members(), sc.unitsAfterChurn());
      row.churnNanos = churn.median;
      row.churnReplaced = sc.churnRemoved().size();
      row.churnSurvivors = sc.churnSurvivors();
      row.churnMoved = Metrics.moved(before, churn.last);
      if (check && !churn.last.equals(a.assign(sc.members(), sc.unitsAfterChurn(), before))) {
        differs.add("churn");
      }
      churn.last = null;

      row.updateSamples = Math.min(leave.samples, Math.min(join.samples, churn.samples));
      row.check = !row.incremental ? "n/a" : !check ? "skipped" : differs.isEmpty() ? "ok" : "differs:" + String.join(",", differs);
    } catch (RuntimeException | Error e) {
      if (e instanceof VirtualMachineError && !(e instanceof OutOfMemoryError) && !(e instanceof StackOverflowError)) {
        throw e;
      }
      row.error = message(e);
      row.errorPhase = phase;
      row.check = "-";
    }
    row.totalNanos = System.nanoTime() - start;
    progress.accept(
        String.format(
            Locale.ROOT,
            "  %s N=%d M=%d: %s in %.2f s",
            name,
            sc.n(),
            sc.m(),
            row.ok() ? "done" : "error (" + row.errorPhase + "): " + row.error,
            row.totalSeconds()));
    return row;
  }

  private static String message(Throwable e) {
    String msg = e.getMessage();
    return msg == null || msg.isBlank() ? e.getClass().getName() : msg;
  }

  private static void note(Consumer<String> progress, String name, Scenario sc, String what, Timed t) {
    if (t.median >= 1e9) {
      progress.accept(
          String.format(
              Locale.ROOT,
              "  %s N=%d M=%d: %s median %.0f ms over %d run%s",
              name,
              sc.n(),
              sc.m(),
              what,
              t.median / 1e6,
              t.samples,
              t.samples == 1 ? "" : "s"));
    }
  }

  /** Timing of one operation: median of the runs, and the last result. */
  private static final class Timed {
    double median;
    int samples;
    Table last;
  }

  /**
   * Runs {@code op} {@code reps} times. In automatic mode ({@code budgeted}) {@code reps} is a
   * minimum: cheap operations are repeated until their runs add up to {@value #MIN_MILLIS} ms (at
   * most {@value #MAX_AUTO_REPS} runs), and expensive ones stop early, after at least one run, once
   * their runs add up to {@value #BUDGET_SECONDS} s.
   */
  private static Timed time(Supplier<Table> op, int reps, boolean budgeted) {
    int max = budgeted ? Math.max(reps, MAX_AUTO_REPS) : reps;
    long[] ns = new long[max];
    long spent = 0;
    Timed t = new Timed();
    int k = 0;
    while (k < max) {
      t.last = null;
      long t0 = System.nanoTime();
      Table r = op.get();
      long dt = System.nanoTime() - t0;
      t.last = r;
      ns[k++] = dt;
      spent += dt;
      if (budgeted && (spent >= BUDGET_SECONDS * 1_000_000_000L || (k >= reps && spent >= MIN_MILLIS * 1_000_000L))) {
        break;
      }
      if (!budgeted && k >= reps) {
        break;
      }
    }
    t.samples = k;
    t.median = median(Arrays.copyOf(ns, k));
    return t;
  }

  static double median(long[] xs) {
    Arrays.sort(xs);
    int k = xs.length;
    return k % 2 == 1 ? xs[k / 2] : (xs[k / 2 - 1] + xs[k / 2]) / 2.0;
  }

  // ------------------------------------------------------------------------------------- main

  /**
   * Runs with command-line arguments; returns the exit code (0 ok, 2 bad usage).
   *
   * @param out the report
   * @param err progress and error messages
   */
  public static int execute(String[] args, PrintStream out, PrintStream err) {
    Options o;
    try {
      if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
        out.print(USAGE);
        return 0;
      }
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.print(USAGE);
      return 2;
    }
    run(o, out, err);
    return 0;
  }

  public static void main(String[] args) {
    System.exit(execute(args, System.out, System.err));
  }
}
