package io.allot.bench;

import java.util.LinkedHashSet;
import java.util.List;

/**
 * What {@code bench assign} runs: strategies and the cells (N units, M members): the grid {@code sizes × members},
 * plus the shapes {@code N = r · M} for every ratio r of {@code ratios} and every M of {@code members}. The command
 * line is parsed by {@link AssignCommand}; this is the checked value, also for use from code.
 *
 * <p>Defaults: when neither {@code sizes} nor {@code ratios} is given, both take their defaults ({@link #SIZES} and
 * {@link #RATIOS}, or the quick ones); when only one is given, the other is empty.
 *
 * @param quick the small grid when {@code sizes} or {@code members} are not given
 * @param json print the report as JSON instead of the table
 * @param strategies names from {@link Strategies#all()}, normalised, without repeats; empty: all of them
 * @param sizes unit counts N, without repeats
 * @param members member counts M, without repeats; empty: {@link #MEMBERS} (or {@link #QUICK_MEMBERS})
 * @param ratios units per member N/M, without repeats
 * @param repeat timed runs of each operation; 0: chosen by size (see {@link AssignRunner})
 */
public record AssignOptions(
    boolean quick,
    boolean json,
    List<String> strategies,
    List<Integer> sizes,
    List<Integer> members,
    List<Integer> ratios,
    int repeat) {

  /** Unit counts of the full grid. */
  public static final List<Integer> SIZES = List.of(1_000, 100_000, 1_000_000);
  /** Member counts of the full grid. */
  public static final List<Integer> MEMBERS = List.of(3, 10, 100, 1_000);
  /** Units per member of the small shapes, run for every member count (full and quick). */
  public static final List<Integer> RATIOS = List.of(2, 5, 20);
  /** Unit counts with {@code --quick}. */
  public static final List<Integer> QUICK_SIZES = List.of(1_000, 10_000);
  /** Member counts with {@code --quick}. */
  public static final List<Integer> QUICK_MEMBERS = List.of(3, 10, 100);

  /** Upper limits, to fail fast instead of running out of memory. */
  public static final int MAX_UNITS = 20_000_000;

  public static final int MAX_MEMBERS = 100_000;
  public static final int MAX_REPEAT = 1_000;

  /** One cell of the benchmark: N units, M members. */
  public record Cell(int n, int m) {}

  /** The options without small shapes beyond the defaults (see the class comment). */
  public AssignOptions(
      boolean quick, boolean json, List<String> strategies, List<Integer> sizes, List<Integer> members, int repeat) {
    this(quick, json, strategies, sizes, members, null, repeat);
  }

  /**
   * Fills in the defaults and checks the ranges.
   *
   * @throws IllegalArgumentException naming the option ({@code --sizes}, ...) and the bad value
   */
  public AssignOptions {
    strategies = strategies == null || strategies.isEmpty() ? Strategies.all() : checkStrategies(strategies);
    boolean sizesGiven = sizes != null && !sizes.isEmpty();
    boolean ratiosGiven = ratios != null && !ratios.isEmpty();
    sizes = sizesGiven ? List.copyOf(new LinkedHashSet<>(sizes)) : ratiosGiven ? List.of() : quick ? QUICK_SIZES : SIZES;
    ratios = ratiosGiven ? List.copyOf(new LinkedHashSet<>(ratios)) : sizesGiven ? List.of() : RATIOS;
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
    for (int r : ratios) {
      for (int m : members) {
        if (r < 1 || (long) r * m > MAX_UNITS) {
          throw new IllegalArgumentException("--ratios: " + r + " is out of range; each ratio must be at least 1, and "
              + "ratio x members at most " + MAX_UNITS);
        }
      }
    }
    if (repeat < 0 || repeat > MAX_REPEAT) {
      throw new IllegalArgumentException("--repeat: " + repeat + " is out of range; it must be between 1 and " + MAX_REPEAT);
    }
  }

  /**
   * The cells to run, in this order, without repeats: the small shapes (by ratio, then member count), then the grid
   * (by size, then member count).
   */
  public List<Cell> cells() {
    LinkedHashSet<Cell> out = new LinkedHashSet<>();
    for (int r : ratios) {
      for (int m : members) {
        out.add(new Cell(r * m, m));
      }
    }
    for (int n : sizes) {
      for (int m : members) {
        out.add(new Cell(n, m));
      }
    }
    return List.copyOf(out);
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
