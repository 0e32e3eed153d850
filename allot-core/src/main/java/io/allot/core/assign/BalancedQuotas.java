package io.allot.core.assign;

import io.allot.core.hash.Hashing;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.Arrays;

/**
 * The per-member unit quotas of the {@code balanced} strategy: weighted shares, capacity-clamped
 * by water-filling, rounded by the largest remainder method with a movement-minimising tie-break.
 *
 * <p><b>Shares.</b> With {@code R} units left for the unclamped members and {@code W} their total
 * affinity, member {@code i} has the share {@code R·w_i/W}. Every member whose share exceeds its
 * capacity is clamped to the capacity; that raises everyone else's share, so this is repeated
 * until no share exceeds its capacity (water-filling: a member once clamped stays clamped). If
 * every member ends up clamped, the units beyond the total capacity are the {@link #overflow()}.
 * All arithmetic is exact ({@code long}, no floating point).
 *
 * <p><b>Rounding.</b> Each unclamped member gets {@code floor(share)}; the {@code rem} units left
 * over go, one each, to members whose share has a fractional part, chosen in this order:
 *
 * <ol>
 *   <li>members that already hold more than {@code floor(share)} units ({@code kept > floor}):
 *       giving them the extra unit saves a move, so this choice makes the movement minimal among
 *       all perfectly balanced outcomes;
 *   <li>larger fractional part (classic largest remainder: closest to the ideal share);
 *   <li>smaller {@link Hashing#hash64(String)} of the member id (spreads the extra units over the
 *       fleet instead of always favouring the same names);
 *   <li>byte order of the member id.
 * </ol>
 *
 * Since the next run with the same inputs sees {@code kept = quota}, the same members win the
 * extra units again: repeated runs move nothing.
 */
final class BalancedQuotas {
  private final int[] quota;
  private final long overflow;

  private BalancedQuotas(int[] quota, long overflow) {
    this.quota = quota;
    this.overflow = overflow;
  }

  /** Quota of member {@code i} (index in byte order); 0 for members with affinity 0. */
  int quota(int i) {
    return quota[i];
  }

  /** Units nobody has room for: {@code max(0, units − total capacity of members with affinity > 0)}. */
  long overflow() {
    return overflow;
  }

  /**
   * Computes the quotas.
   *
   * @param members the members in byte order
   * @param kept per member, how many of its previous units it still holds before rebalancing (only
   *     used to break rounding ties)
   * @param units the number of units
   */
  static BalancedQuotas compute(Member[] members, int[] kept, long units) {
    int m = members.length;
    int[] quota = new int[m];
    boolean[] active = new boolean[m];
    int activeCount = 0;
    long r = units; // units left for the active (unclamped) members
    long w = 0; // their total affinity
    for (int i = 0; i < m; i++) {
      if (members[i].affinity() > 0) {
        active[i] = true;
        activeCount++;
        w += members[i].affinity();
      }
    }
    // water-filling: clamp every member whose share exceeds its capacity, until none does
    boolean clampedSome = true;
    while (activeCount > 0 && clampedSome) {
      clampedSome = false;
      long rNext = r;
      long wNext = w;
      for (int i = 0; i < m; i++) {
        if (!active[i]) {
          continue;
        }
        int cap = members[i].capacity();
        long p = Math.multiplyExact(r, (long) members[i].affinity());
        long f = p / w;
        if (f > cap || (f == cap && p % w != 0)) {
          active[i] = false;
          activeCount--;
          quota[i] = cap;
          rNext -= cap;
          wNext -= members[i].affinity();
          clampedSome = true;
        }
      }
      r = rNext;
      w = wNext;
    }
    if (activeCount == 0) {
      // every member with affinity > 0 is full (or there is none): the rest overflows
      return new BalancedQuotas(quota, Math.max(0, r));
    }
    long[] frac = new long[m];
    long assigned = 0;
    int withFraction = 0;
    for (int i = 0; i < m; i++) {
      if (active[i]) {
        long p = Math.multiplyExact(r, (long) members[i].affinity());
        quota[i] = (int) (p / w);
        frac[i] = p % w;
        assigned += quota[i];
        if (frac[i] != 0) {
          withFraction++;
        }
      }
    }
    int rem = (int) (r - assigned); // 0 <= rem < number of members with a fractional share
    if (rem > 0) {
      Integer[] cand = new Integer[withFraction];
      long[] hash = new long[m];
      int c = 0;
      for (int i = 0; i < m; i++) {
        if (active[i] && frac[i] != 0) {
          cand[c++] = i;
          hash[i] = Hashing.hash64(members[i].id());
        }
      }
      Arrays.sort(
          cand,
          (a, b) -> {
            boolean sa = kept[a] > quota[a];
            boolean sb = kept[b] > quota[b];
            if (sa != sb) {
              return sa ? -1 : 1;
            }
            int x = Long.compare(frac[b], frac[a]);
            if (x != 0) {
              return x;
            }
            x = Long.compare(hash[a], hash[b]);
            if (x != 0) {
              return x;
            }
            return Names.compareBytes(members[a].id(), members[b].id());
          });
      for (int k = 0; k < rem; k++) {
        quota[cand[k]]++;
      }
    }
    return new BalancedQuotas(quota, 0);
  }
}
