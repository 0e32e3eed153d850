package io.allot.core.assign;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;

/**
 * The bounded loads of {@link RendezvousAssigner}: when first choices put more units on a member than its cap, units are
 * placed by unit-proposing deferred acceptance, giving the unique unit-optimal stable matching (independent of the
 * processing order). Stateless.
 */
final class BoundedMatching {
  private BoundedMatching() {}

  /**
   * Unit-proposing deferred acceptance, starting from the first-choice assignment. Each member
   * holds at most its cap of units; once contested, its units form a min-heap by the member's
   * preference so the worst one can be displaced.
   */
  static void resolve(RendezvousPool pool, String[] us, long[] hu, int[] owner, int[] load) {
    int m = pool.members.length;
    int[][] acc = new int[m][];
    int[] size = new int[m];
    boolean[] heaped = new boolean[m];
    for (int i = 0; i < m; i++) {
      acc[i] = new int[Math.max(load[i], 1)];
    }
    for (int u = 0; u < owner.length; u++) {
      int o = owner[u];
      if (o >= 0) {
        acc[o][size[o]++] = u;
      }
    }
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    HashMap<Integer, int[]> prefs = new HashMap<>();
    HashMap<Integer, Integer> nextPos = new HashMap<>();
    for (int i = 0; i < m; i++) {
      int cap = pool.caps[i];
      if (size[i] > cap) {
        final int mi = i;
        Integer[] boxed = new Integer[size[i]];
        for (int k = 0; k < size[i]; k++) {
          boxed[k] = acc[i][k];
        }
        Arrays.sort(boxed, (a, b) -> -pool.compareForMember(mi, hu, us, a, b));
        for (int k = cap; k < boxed.length; k++) {
          owner[boxed[k]] = -1;
          queue.add(boxed[k]);
        }
        for (int k = 0; k < cap; k++) {
          acc[i][k] = boxed[k];
        }
        size[i] = cap;
      }
      if (acc[i].length < cap) {
        acc[i] = Arrays.copyOf(acc[i], (int) Math.min(cap, Math.max(16L, (long) acc[i].length * 2)));
      }
    }
    while (!queue.isEmpty()) {
      int u = queue.poll();
      int[] pl = prefs.computeIfAbsent(u, k -> pool.preferences(hu[k]));
      int p = nextPos.getOrDefault(u, 0);
      boolean placed = false;
      while (p < pl.length) {
        int c = pl[p++];
        int cap = pool.caps[c];
        if (size[c] < cap) {
          if (size[c] == acc[c].length) {
            acc[c] = Arrays.copyOf(acc[c], (int) Math.min(cap, (long) acc[c].length * 2));
          }
          acc[c][size[c]++] = u;
          owner[u] = c;
          if (heaped[c]) {
            siftUp(acc[c], size[c] - 1, pool, c, hu, us);
          }
          placed = true;
          break;
        }
        if (!heaped[c]) {
          for (int k = size[c] / 2 - 1; k >= 0; k--) {
            siftDown(acc[c], size[c], k, pool, c, hu, us);
          }
          heaped[c] = true;
        }
        int worst = acc[c][0];
        if (pool.compareForMember(c, hu, us, u, worst) > 0) {
          owner[u] = c;
          owner[worst] = -1;
          acc[c][0] = u;
          siftDown(acc[c], size[c], 0, pool, c, hu, us);
          queue.add(worst);
          placed = true;
          break;
        }
      }
      nextPos.put(u, p);
      if (!placed) {
        owner[u] = -1; // nobody can take it
      }
    }
    Arrays.fill(load, 0);
    for (int o : owner) {
      if (o >= 0) {
        load[o]++;
      }
    }
  }

  private static void siftUp(int[] heap, int k, RendezvousPool pool, int i, long[] hu, String[] us) {
    while (k > 0) {
      int parent = (k - 1) / 2;
      if (pool.compareForMember(i, hu, us, heap[k], heap[parent]) < 0) {
        int t = heap[k];
        heap[k] = heap[parent];
        heap[parent] = t;
        k = parent;
      } else {
        return;
      }
    }
  }

  private static void siftDown(int[] heap, int size, int k, RendezvousPool pool, int i, long[] hu, String[] us) {
    while (true) {
      int l = 2 * k + 1;
      int r = l + 1;
      int min = k;
      if (l < size && pool.compareForMember(i, hu, us, heap[l], heap[min]) < 0) {
        min = l;
      }
      if (r < size && pool.compareForMember(i, hu, us, heap[r], heap[min]) < 0) {
        min = r;
      }
      if (min == k) {
        return;
      }
      int t = heap[k];
      heap[k] = heap[min];
      heap[min] = t;
      k = min;
    }
  }
}
