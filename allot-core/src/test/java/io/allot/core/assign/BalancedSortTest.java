package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.core.model.Member;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The linear-time sort behind {@code balanced}'s hash order, against {@link Arrays#sort(long[])}. */
class BalancedSortTest {

  @Property(tries = 60)
  void sortsLikeArraysSort(@ForAll @IntRange(min = 0, max = 40_000) int n, @ForAll long seed, @ForAll @IntRange(min = 0, max = 3) int kind) {
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
    assertThat(keys).isEqualTo(expected);
  }

  @Property(tries = 20)
  void aDuplicateAmongManyUnitsIsNamed(@ForAll @IntRange(min = 0, max = 9_999) int at) {
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

  @Property(tries = 10)
  void theFullAssignmentIsTheSameWithOrWithoutTheLinearSort(@ForAll @IntRange(min = 4_096, max = 30_000) int n) {
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
