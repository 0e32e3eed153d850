package io.allot.bench;

import java.util.LinkedHashSet;
import java.util.List;

/**
 * What {@code bench assign} runs: strategies and the grid of (N units, M members). The command line is parsed by
 * {@link AssignCommand}; this is the checked value, also for use from code.
 *
 * @param quick the small grid when {@code sizes} or {@code members} are not given
 * @param json print the report as JSON instead of the table
 * @param strategies names from {@link Strategies#all()}, normalised, without repeats; empty: all of them
 * @param sizes unit counts N, without repeats; empty: {@link #SIZES} (or {@link #QUICK_SIZES})
 * @param members member counts M, without repeats; empty: {@link #MEMBERS} (or {@link #QUICK_MEMBERS})
 * @param repeat timed runs of each operation; 0: chosen by size (see {@link AssignRunner})
 */
public record AssignOptions(
    boolean quick, boolean json, List<String> strategies, List<Integer> sizes, List<Integer> members, int repeat) {

  /** Unit counts of the full grid. */
  public static final List<Integer> SIZES = List.of(1_000, 100_000, 1_000_000);
  /** Member counts of the full grid. */
  public static final List<Integer> MEMBERS = List.of(3, 10, 100, 1_000);
  /** Unit counts with {@code --quick}. */
  public static final List<Integer> QUICK_SIZES = List.of(1_000, 10_000);
  /** Member counts with {@code --quick}. */
  public static final List<Integer> QUICK_MEMBERS = List.of(3, 10, 100);

  /** Upper limits, to fail fast instead of running out of memory. */
  public static final int MAX_UNITS = 20_000_000;

  public static final int MAX_MEMBERS = 100_000;
  public static final int MAX_REPEAT = 1_000;

  /**
   * Fills in the defaults and checks the ranges.
   *
   * @throws IllegalArgumentException naming the option ({@code --sizes}, ...) and the bad value
   */
  public AssignOptions {
    strategies = strategies == null || strategies.isEmpty() ? Strategies.all() : checkStrategies(strategies);
    sizes = sizes == null || sizes.isEmpty() ? (quick ? QUICK_SIZES : SIZES) : List.copyOf(new LinkedHashSet<>(sizes));
    members =
        members == null || members.isEmpty() ? (quick ? QUICK_MEMBERS : MEMBERS) : List.copyOf(new LinkedHashSet<>(members));
    for (int n : sizes) {
      if (n < 1 || n > MAX_UNITS) {
        throw new IllegalArgumentException("--sizes: " + n + " is out of range; each size must be between 1 and " + MAX_UNITS);
      }
    }
    for (int m : members) {
      if (m < 2 || m > MAX_MEMBERS) {
        throw new IllegalArgumentException("--members: " + m
            + " is out of range; each member count must be between 2 (one of them leaves) and " + MAX_MEMBERS);
      }
    }
    if (repeat < 0 || repeat > MAX_REPEAT) {
      throw new IllegalArgumentException("--repeat: " + repeat + " is out of range; it must be between 1 and " + MAX_REPEAT);
    }
  }

  /** The full grid, all strategies, table output. */
  public static AssignOptions defaults() {
    return new AssignOptions(false, false, List.of(), List.of(), List.of(), 0);
  }

  /** The quick grid, all strategies, table output. */
  public static AssignOptions quickDefaults() {
    return new AssignOptions(true, false, List.of(), List.of(), List.of(), 0);
  }

  private static List<String> checkStrategies(List<String> names) {
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
}
