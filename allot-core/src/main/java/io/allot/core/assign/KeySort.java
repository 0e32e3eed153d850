package io.allot.core.assign;

import io.allot.core.model.Names;

/**
 * Sorts an array of 64-bit keys while carrying an {@code int[]} (indexes into something else) along: the seed-ring's
 * points (by signed High) and rendezvous's per-member unit lists (by unsigned hash, then name). Primitive arrays, no
 * boxing: these run over millions of keys. Introsort (median-of-three quicksort, heap sort past a depth limit,
 * insertion sort for short ranges), so O(n log n) in the worst case; not stable.
 */
final class KeySort {
  private KeySort() {}

  private static final int INSERTION_SORT_MAX = 32;

  /** Sorts {@code a[lo..hi)} ascending (signed), permuting {@code p} the same way. */
  static void sort(long[] a, int[] p, int lo, int hi) {
    introSort(a, p, lo, hi, 2 * (32 - Integer.numberOfLeadingZeros(hi - lo)));
  }

  /**
   * Sorts {@code keys} ascending as unsigned numbers, permuting {@code idx} the same way; equal keys are ordered by
   * {@code names[idx[i]]} in byte order.
   */
  static void sortUnsignedThenName(long[] keys, int[] idx, String[] names) {
    int n = keys.length;
    for (int i = 0; i < n; i++) { // unsigned order is signed order with the sign bit flipped
      keys[i] ^= Long.MIN_VALUE;
    }
    sort(keys, idx, 0, n);
    for (int s = 0; s < n - 1; ) { // runs of equal keys (64-bit hash collisions): by name
      int e = s + 1;
      while (e < n && keys[e] == keys[s]) {
        e++;
      }
      for (int i = s + 1; i < e; i++) {
        int v = idx[i];
        int j = i - 1;
        while (j >= s && Names.compareBytes(names[idx[j]], names[v]) > 0) {
          idx[j + 1] = idx[j];
          j--;
        }
        idx[j + 1] = v;
      }
      s = e;
    }
    for (int i = 0; i < n; i++) {
      keys[i] ^= Long.MIN_VALUE;
    }
  }

  /** Introsort of {@code a[lo..hi)}; heap sort once {@code depth} partitions deep (0: heap sort at once). */
  static void introSort(long[] a, int[] p, int lo, int hi, int depth) {
    while (hi - lo > INSERTION_SORT_MAX) {
      if (depth-- == 0) {
        heapSort(a, p, lo, hi);
        return;
      }
      int mid = (lo + hi) >>> 1;
      // median of three into a[lo]
      sort3(a, p, lo, mid, hi - 1);
      swap(a, p, lo, mid);
      long pivot = a[lo];
      // Hoare partition around a[lo]
      int i = lo;
      int j = hi;
      while (true) {
        do {
          i++;
        } while (i < hi && a[i] < pivot);
        do {
          j--;
        } while (a[j] > pivot);
        if (i >= j) {
          break;
        }
        swap(a, p, i, j);
      }
      swap(a, p, lo, j);
      // recurse on the smaller side, loop on the larger
      if (j - lo < hi - j - 1) {
        introSort(a, p, lo, j, depth);
        lo = j + 1;
      } else {
        introSort(a, p, j + 1, hi, depth);
        hi = j;
      }
    }
    insertionSort(a, p, lo, hi);
  }

  private static void sort3(long[] a, int[] p, int x, int y, int z) {
    if (a[y] < a[x]) {
      swap(a, p, x, y);
    }
    if (a[z] < a[y]) {
      swap(a, p, y, z);
      if (a[y] < a[x]) {
        swap(a, p, x, y);
      }
    }
  }

  private static void insertionSort(long[] a, int[] p, int lo, int hi) {
    for (int i = lo + 1; i < hi; i++) {
      long v = a[i];
      int q = p[i];
      int j = i - 1;
      while (j >= lo && a[j] > v) {
        a[j + 1] = a[j];
        p[j + 1] = p[j];
        j--;
      }
      a[j + 1] = v;
      p[j + 1] = q;
    }
  }

  private static void heapSort(long[] a, int[] p, int lo, int hi) {
    int n = hi - lo;
    for (int i = n / 2 - 1; i >= 0; i--) {
      siftDown(a, p, lo, i, n);
    }
    for (int end = n - 1; end > 0; end--) {
      swap(a, p, lo, lo + end);
      siftDown(a, p, lo, 0, end);
    }
  }

  private static void siftDown(long[] a, int[] p, int lo, int i, int n) {
    while (true) {
      int child = 2 * i + 1;
      if (child >= n) {
        return;
      }
      if (child + 1 < n && a[lo + child + 1] > a[lo + child]) {
        child++;
      }
      if (a[lo + i] >= a[lo + child]) {
        return;
      }
      swap(a, p, lo + i, lo + child);
      i = child;
    }
  }

  private static void swap(long[] a, int[] p, int i, int j) {
    long t = a[i];
    a[i] = a[j];
    a[j] = t;
    int s = p[i];
    p[i] = p[j];
    p[j] = s;
  }
}
