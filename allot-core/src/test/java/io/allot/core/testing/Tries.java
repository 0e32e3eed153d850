package io.allot.core.testing;

import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Runs a property on generated cases, for the properties whose generators are easiest written as plain code on a
 * {@link Random}: first the given edge cases, then {@code tries} cases, each made by the generator from a seed of its
 * own (the seeds differ from run to run). A failure names the case, the try and its seed, and the smallest failing
 * case that {@code smaller} leads to (if given); {@code -Dallot.seed=<seed>} replays that one case (with {@code
 * -Dtest=Class#method} to run only that property). The simpler properties use QuickTheories instead, which prints its
 * own seed. One copy for every module's tests: allot-core publishes it in its test-jar.
 */
public final class Tries {
  /** The system property that replays one seed. */
  public static final String SEED_PROPERTY = "allot.seed";
  /** At most this many smaller cases are tried after a failure. */
  static final int SHRINK_STEPS = 2_000;

  private Tries() {}

  /** Checks {@code property} on {@code tries} generated cases (or on the one replayed). */
  public static <T> void forAll(int tries, Function<Random, T> generator, Consumer<T> property) {
    forAll(tries, List.of(), generator, property);
  }

  /** Checks {@code property} on every edge case, then on {@code tries} generated cases (or on the one replayed). */
  public static <T> void forAll(int tries, List<T> edges, Function<Random, T> generator, Consumer<T> property) {
    forAll(tries, edges, generator, t -> List.of(), property);
  }

  /**
   * Checks {@code property} on every edge case, then on {@code tries} generated cases (or on the one replayed).
   *
   * @param smaller the cases a little smaller than a given one (parts dropped, numbers lowered), tried in order
   */
  public static <T> void forAll(int tries, List<T> edges, Function<Random, T> generator,
      Function<T, List<T>> smaller, Consumer<T> property) {
    String test = caller();
    String replay = System.getProperty(SEED_PROPERTY, "").trim();
    if (!replay.isEmpty()) {
      long seed = Long.parseLong(replay);
      check(property, smaller, generator.apply(new Random(seed)), "the replayed seed " + seed);
      return;
    }
    for (int i = 0; i < edges.size(); i++) {
      check(property, smaller, edges.get(i), "edge case " + (i + 1) + " of " + edges.size());
    }
    SplittableRandom seeds = new SplittableRandom();
    for (int i = 0; i < tries; i++) {
      long seed = seeds.nextLong();
      String which = "try " + (i + 1) + " of " + tries + ", seed " + seed + " (replay: -D" + SEED_PROPERTY + "=" + seed
          + " -Dtest='" + test + "')";
      T value;
      try {
        value = generator.apply(new Random(seed));
      } catch (RuntimeException e) {
        throw new AssertionError("generator failed on " + which, e);
      }
      check(property, smaller, value, which);
    }
  }

  /**
   * A whole number in {@code [min, max]}: uniform in most draws, but the ends and small values come up more often (as
   * sizes, counts and ranks are where the bugs hide).
   */
  public static int between(Random r, int min, int max) {
    int k = r.nextInt(10);
    if (k == 0) {
      return r.nextBoolean() ? min : max;
    }
    if (k <= 2) {
      return min + r.nextInt(Math.min(max - min, 7) + 1);
    }
    return min + r.nextInt(max - min + 1);
  }

  /** The index of one of the weights, each drawn with its weight's share of the total. */
  public static int weighted(Random r, int... weights) {
    int total = 0;
    for (int w : weights) {
      total += w;
    }
    int x = r.nextInt(total);
    for (int i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x < 0) {
        return i;
      }
    }
    throw new AssertionError("unreachable");
  }

  private static <T> void check(Consumer<T> property, Function<T, List<T>> smaller, T value, String which) {
    Throwable failure = failure(property, value);
    if (failure == null) {
      return;
    }
    // look for a smaller case that fails too: greedily, the first smaller one that fails, then smaller than that
    T smallest = value;
    Throwable smallestFailure = failure;
    int steps = 0;
    boolean shrunk = true;
    while (shrunk && steps < SHRINK_STEPS) {
      shrunk = false;
      for (T candidate : smaller.apply(smallest)) {
        if (++steps > SHRINK_STEPS) {
          break;
        }
        Throwable f = failure(property, candidate);
        if (f != null) {
          smallest = candidate;
          smallestFailure = f;
          shrunk = true;
          break;
        }
      }
    }
    String message = "property failed on " + which + "\ncase: " + value + "\n" + failure.getMessage();
    if (smallest != value) {
      message += "\n\nsmallest failing case found from it: " + smallest + "\n" + smallestFailure.getMessage();
    }
    AssertionError error = new AssertionError(message, failure);
    if (smallest != value) {
      error.addSuppressed(smallestFailure);
    }
    throw error;
  }

  private static <T> Throwable failure(Consumer<T> property, T value) {
    try {
      property.accept(value);
      return null;
    } catch (AssertionError | RuntimeException e) {
      return e;
    }
  }

  /** Class#method of the test that called {@link #forAll}: the nearest caller that is a JUnit test. */
  private static String caller() {
    List<StackWalker.StackFrame> frames = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
        .walk(s -> s.filter(f -> f.getDeclaringClass() != Tries.class).toList());
    StackWalker.StackFrame pick = frames.isEmpty() ? null : frames.get(0);
    for (StackWalker.StackFrame f : frames) {
      try {
        if (f.getDeclaringClass().getDeclaredMethod(f.getMethodName()).isAnnotationPresent(Test.class)) {
          pick = f;
          break;
        }
      } catch (NoSuchMethodException notATest) {
        // a helper or a lambda: look further up
      }
    }
    return pick == null ? "?" : pick.getDeclaringClass().getSimpleName() + "#" + pick.getMethodName();
  }
}
