package io.allot.core.assign;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.model.Names;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class KeySortTest {

  @Test
  void sortMatchesArraysSortIncludingTheHeapSortFallback() {
    Random rnd = new Random(42);
    for (int round = 0; round < 300; round++) {
      int n = rnd.nextInt(400);
      long[] a = new long[n];
      int kind = round % 4;
      for (int i = 0; i < n; i++) {
        a[i] =
            switch (kind) {
              case 0 -> rnd.nextLong();
              case 1 -> rnd.nextInt(5) - 2; // many duplicates
              case 2 -> i; // sorted
              default -> n - i; // reversed
            };
      }
      int[] p = IntStream.range(0, n).toArray();
      long[] orig = a.clone();
      if (round % 3 == 0) {
        KeySort.introSort(a, p, 0, n, 0); // straight to heap sort
      } else {
        KeySort.sort(a, p, 0, n);
      }
      long[] want = orig.clone();
      Arrays.sort(want);
      assertThat(a).isEqualTo(want);
      for (int i = 0; i < n; i++) {
        assertThat(orig[p[i]]).isEqualTo(a[i]);
      }
      assertThat(Arrays.stream(p).sorted().toArray()).isEqualTo(IntStream.range(0, n).toArray());
    }
  }

  @Test
  void unsignedThenNameMatchesAComparatorSort() {
    Random rnd = new Random(11);
    for (int round = 0; round < 200; round++) {
      int n = rnd.nextInt(300);
      long[] keys = new long[n];
      String[] names = new String[n];
      for (int i = 0; i < n; i++) {
        // a few distinct keys, both signs, so that equal keys and the sign bit both matter
        keys[i] = round % 2 == 0 ? rnd.nextLong() : (rnd.nextInt(6) - 3) * 0x3000_0000_0000_0000L;
        names[i] = "u" + rnd.nextInt(1000) + (char) ('a' + i % 26) + i;
      }
      int[] idx = IntStream.range(0, n).toArray();
      long[] orig = keys.clone();
      KeySort.sortUnsignedThenName(keys, idx, names);
      Integer[] want = IntStream.range(0, n).boxed().toArray(Integer[]::new);
      Arrays.sort(want, Comparator.<Integer, Long>comparing(i -> orig[i], Long::compareUnsigned)
          .thenComparing(i -> names[i], Names.BYTE_ORDER));
      assertThat(idx).containsExactly(Arrays.stream(want).mapToInt(Integer::intValue).toArray());
      for (int i = 0; i < n; i++) {
        assertThat(keys[i]).isEqualTo(orig[idx[i]]); // keys come back unflipped, permuted with idx
      }
    }
  }
}
