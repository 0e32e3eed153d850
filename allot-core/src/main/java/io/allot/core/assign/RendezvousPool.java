package io.allot.core.assign;

import io.allot.core.hash.Hashing;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The scores of {@link RendezvousAssigner}: the members of one run that can take units (grouped by affinity, so that
 * a group of equal affinity is compared without logarithms), their caps, and who wins a unit. A member's index is its
 * position in byte order. Immutable after construction, so a run may read it from many threads.
 */
final class RendezvousPool {
  private static final int INDEX_BITS = 24; // up to 16M members
  private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;

  final Member[] members; // all, byte order
  final long[] seeds; // per member
  final int[] caps; // per member; 0 if not eligible
  private final long[][] groupSeeds;
  private final int[][] groupIndex;
  private final int[] groupWeight;
  final int eligible;

  /**
   * @param members all members, in byte order
   * @param units   how many units the run places (the share a bound is taken of)
   * @param epsilon the load bound ε, or NaN: no bound (capacity only)
   */
  RendezvousPool(Member[] members, int units, double epsilon) {
    this.members = members;
    int n = members.length;
    if (n > INDEX_MASK) {
      throw new IllegalArgumentException("too many members: " + n);
    }
    seeds = new long[n];
    caps = new int[n];
    long w = 0;
    int e = 0;
    TreeMap<Integer, List<Integer>> byWeight = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      Member m = members[i];
      seeds[i] = Hashing.hash64(m.id());
      if (m.affinity() > 0 && m.capacity() > 0) {
        w += m.affinity();
        e++;
        byWeight.computeIfAbsent(m.affinity(), k -> new ArrayList<>()).add(i);
      }
    }
    eligible = e;
    groupSeeds = new long[byWeight.size()][];
    groupIndex = new int[byWeight.size()][];
    groupWeight = new int[byWeight.size()];
    int g = 0;
    for (Map.Entry<Integer, List<Integer>> en : byWeight.entrySet()) {
      List<Integer> idx = en.getValue();
      groupWeight[g] = en.getKey();
      groupIndex[g] = idx.stream().mapToInt(Integer::intValue).toArray();
      groupSeeds[g] = new long[idx.size()];
      for (int k = 0; k < idx.size(); k++) {
        groupSeeds[g][k] = seeds[idx.get(k)];
      }
      g++;
    }
    for (int i = 0; i < n; i++) {
      Member m = members[i];
      if (m.affinity() > 0 && m.capacity() > 0) {
        long cap = m.capacity();
        if (!Double.isNaN(epsilon)) {
          double share = (double) units * m.affinity() / w;
          long bound = (long) Math.ceil((1 + epsilon) * share - 1e-9);
          cap = Math.min(cap, Math.max(bound, 1));
        }
        caps[i] = (int) Math.min(cap, Integer.MAX_VALUE);
      }
    }
  }

  /** The 64-bit pair hash of a unit hash and a member seed. */
  static long pair(long unitHash, long memberSeed) {
    long z = unitHash ^ memberSeed;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** Pair score in 39 bits, packed above the member's index so that max() picks the winner. */
  private static long packed(long unitHash, long seed, int index) {
    return ((pair(unitHash, seed) >>> 25) << INDEX_BITS) | index;
  }

  private static double weightedKey(long packed, int weight) {
    double u = ((packed >>> INDEX_BITS) + 0.5) * 0x1.0p-39;
    return -weight / StrictMath.log(u);
  }

  /** Index of the highest-scoring eligible member for a unit hash, or -1 if none. */
  int best(long hu) {
    int groups = groupSeeds.length;
    if (groups == 1) {
      return (int) (bestPacked(hu, groupSeeds[0], groupIndex[0]) & INDEX_MASK);
    }
    if (groups == 0) {
      return -1;
    }
    double bestKey = -1;
    long bestP = -1;
    for (int g = 0; g < groups; g++) {
      long p = bestPacked(hu, groupSeeds[g], groupIndex[g]);
      double k = weightedKey(p, groupWeight[g]);
      if (k > bestKey || (k == bestKey && (p & INDEX_MASK) > (bestP & INDEX_MASK))) {
        bestKey = k;
        bestP = p;
      }
    }
    return (int) (bestP & INDEX_MASK);
  }

  private static long bestPacked(long hu, long[] s, int[] idx) {
    long best = -1;
    for (int k = 0; k < s.length; k++) {
      long v = packed(hu, s[k], idx[k]);
      if (v > best) {
        best = v;
      }
    }
    return best;
  }

  /** Comparable score of member i for unit hash hu (higher wins; ties: higher index). */
  private double key(long hu, int i) {
    return weightedKey(packed(hu, seeds[i], i), members[i].affinity());
  }

  /** True if member a beats member b for the unit. */
  boolean beats(long hu, int a, int b) {
    int wa = members[a].affinity();
    int wb = members[b].affinity();
    long pa = packed(hu, seeds[a], a);
    long pb = packed(hu, seeds[b], b);
    if (wa == wb) {
      return pa > pb;
    }
    double ka = weightedKey(pa, wa);
    double kb = weightedKey(pb, wb);
    return ka > kb || (ka == kb && a > b);
  }

  /** Eligible members in the unit's preference order. */
  int[] preferences(long hu) {
    int n = members.length;
    double[] keys = new double[eligible];
    Integer[] order = new Integer[eligible];
    int e = 0;
    for (int i = 0; i < n; i++) {
      if (caps[i] > 0) {
        order[e] = i;
        keys[e] = key(hu, i);
        e++;
      }
    }
    Integer[] pos = new Integer[eligible];
    for (int k = 0; k < eligible; k++) {
      pos[k] = k;
    }
    Arrays.sort(pos, (x, y) -> {
      int c = Double.compare(keys[y], keys[x]);
      return c != 0 ? c : Integer.compare(order[y], order[x]);
    });
    int[] out = new int[eligible];
    for (int k = 0; k < eligible; k++) {
      out[k] = order[pos[k]];
    }
    return out;
  }

  /** Positive if member {@code i} prefers unit {@code a} to unit {@code b} (of hashes {@code hu}, names {@code us}). */
  int compareForMember(int i, long[] hu, String[] us, int a, int b) {
    long pa = pair(hu[a], seeds[i]);
    long pb = pair(hu[b], seeds[i]);
    int c = Long.compareUnsigned(pa, pb);
    if (c != 0) {
      return c;
    }
    return -Names.compareBytes(us[a], us[b]); // earlier name wins a full tie
  }
}
