package io.allot.core.assign;

import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Runs a property on generated cases, for the properties whose generators are easiest written as plain code on a
 * {@link Random}: first the given edge cases, then {@code tries} cases, each made by the generator from a seed of its
 * own (the seeds differ from run to run). A failure names the case, the try and its seed; {@code -Dallot.seed=<seed>}
 * replays that one case (with {@code -Dtest=Class#method} to run only that property). The simpler properties use
 * QuickTheories instead, which prints its own seed.
 */
final class Tries {
  static final String SEED_PROPERTY = "allot.seed";

  private Tries() {}

  static <T> void forAll(int tries, Function<Random, T> generator, Consumer<T> property) {
    forAll(tries, List.of(), generator, property);
  }

  /** Checks {@code property} on every edge case, then on {@code tries} generated cases (or on the one replayed). */
  static <T> void forAll(int tries, List<T> edges, Function<Random, T> generator, Consumer<T> property) {
    String test = caller();
    String replay = System.getProperty(SEED_PROPERTY, "").trim();
    if (!replay.isEmpty()) {
      long seed = Long.parseLong(replay);
      check(property, generator.apply(new Random(seed)), "the replayed seed " + seed);
      return;
    }
    for (int i = 0; i < edges.size(); i++) {
      check(property, edges.get(i), "edge case " + (i + 1) + " of " + edges.size());
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
      check(property, value, which);
    }
  }

  /**
   * A whole number in {@code [min, max]}: uniform in most draws, but the ends and small values come up more often (as
   * sizes, counts and ranks are where the bugs hide).
   */
  static int between(Random r, int min, int max) {
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
  static int weighted(Random r, int... weights) {
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

  private static <T> void check(Consumer<T> property, T value, String which) {
    try {
      property.accept(value);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("property failed on " + which + "\ncase: " + value + "\n" + e.getMessage(), e);
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
