package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.allot.core.model.Member;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The linear-time sort behind {@code balanced}'s hash order, against {@link Arrays#sort(long[])}: QuickTheories
 * theories (the bounds of each range first); a failure prints the falsifying values and the seed to replay.
 */
class BalancedSortTest {

  @Test
  void sortsLikeArraysSort() {
    // the sizes at the edges of the radix pass, for every kind of keys, then random sizes
    for (int kind = 0; kind <= 3; kind++) {
      for (int n : new int[] {0, 1, 2, 40_000}) {
        sortsLikeArraysSort(n, 0, kind);
      }
    }
    qt().withExamples(60).forAll(integers().between(0, 40_000), longs().all(), integers().between(0, 3))
        .checkAssert(this::sortsLikeArraysSort);
  }

  private void sortsLikeArraysSort(int n, long seed, int kind) {
    SplittableRandom rnd = new SplittableRandom(seed);
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = switch (kind) {
        case 0 -> rnd.nextLong(); // uniform, both signs
        case 1 -> rnd.nextLong(1000) - 500; // all in one radix bucket: the insertion pass does the work
        case 2 -> (rnd.nextLong() & 0xFFF0_0000_0000_0000L) | i; // few distinct prefixes
        default -> rnd.nextBoolean() ? Long.MIN_VALUE + rnd.nextInt(3) : Long.MAX_VALUE - rnd.nextInt(3);
      };
    }
    long[] expected = keys.clone();
    Arrays.sort(expected);
    BalancedAssigner.sortSigned(keys);
    assertThat(keys).as("%s keys of kind %s from seed %s", n, kind, seed).isEqualTo(expected);
  }

  @Test
  void aDuplicateAmongManyUnitsIsNamed() {
    qt().withExamples(20).forAll(integers().between(0, 9_999)).checkAssert(this::aDuplicateAmongManyUnitsIsNamed);
  }

  private void aDuplicateAmongManyUnitsIsNamed(int at) {
    List<String> units = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      units.add("unit-" + i);
    }
    units.add(at, "unit-" + ((at * 7) % 10_000));
    assertThatThrownBy(() -> new BalancedAssigner().assign(List.of(Member.of("a"), Member.of("b")), units))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(assertThrowsMessage(units));
  }

  private static String assertThrowsMessage(List<String> units) {
    try {
      Inputs.units(units);
      throw new AssertionError("no duplicate");
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  @Test
  void theFullAssignmentIsTheSameWithOrWithoutTheLinearSort() {
    qt().withExamples(10).forAll(integers().between(4_096, 30_000))
        .checkAssert(this::theFullAssignmentIsTheSameWithOrWithoutTheLinearSort);
  }

  private void theFullAssignmentIsTheSameWithOrWithoutTheLinearSort(int n) {
    // the order of the free units, by hash, is fixed forever: compare with a plain sort of the same keys
    List<String> units = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      units.add("u" + i);
    }
    String[] byHash = BalancedAssigner.byHash(units);
    String[] expected = units.toArray(new String[0]);
    Arrays.sort(expected, (x, y) -> {
      int c = Long.compare(io.allot.core.hash.Hashing.hash64(x), io.allot.core.hash.Hashing.hash64(y));
      return c != 0 ? c : io.allot.core.model.Names.compareBytes(x, y);
    });
    assertThat(byHash).isEqualTo(expected);
  }
}
