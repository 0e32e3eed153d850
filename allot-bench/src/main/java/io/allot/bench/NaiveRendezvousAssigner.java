package io.allot.bench;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Inputs;
import io.allot.core.assign.Table;
import io.allot.core.hash.Hashing;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.Arrays;
import java.util.Collection;

/**
 * Baseline {@code naive-rendezvous}: textbook weighted rendezvous hashing, flat O(N·M) on one
 * thread. For unit {@code u} and member {@code m} with affinity {@code w > 0}: {@code score = -w /
 * Math.log(unitInterval(mix64(hash64(u) ^ hash64(m))))}; the unit goes to the highest score, ties
 * to the member later in byte order. No grouping, no bounds, no parallelism, no incremental form
 * (the inherited {@link #update} recomputes everything): the reference a tuned rendezvous is
 * measured against.
 *
 * <p>Only a member's id hash is computed once per run instead of once per pair. Members with
 * affinity 0 get nothing; capacities are ignored. Benchmark code only.
 */
public final class NaiveRendezvousAssigner implements Assigner {
  /** The name the benchmark uses. */
  public static final String NAME = "naive-rendezvous";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Table assign(Collection<Member> members, Collection<String> units, Table previous) {
    Member[] sorted = Inputs.sortedMembers(members);
    String[] us = Inputs.units(units);
    int m = sorted.length;
    long[] memberHash = new long[m];
    double[] weight = new double[m];
    for (int j = 0; j < m; j++) {
      memberHash[j] = Hashing.hash64(sorted[j].id());
      weight[j] = sorted[j].affinity();
    }
    int[] owner = new int[us.length];
    int[] load = new int[m];
    int unassigned = 0;
    for (int i = 0; i < us.length; i++) {
      long h = Hashing.hash64(us[i]);
      int best = -1;
      double bestScore = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < m; j++) {
        if (weight[j] <= 0) {
          continue;
        }
        double u = Hashing.unitInterval(Hashing.mix64(h ^ memberHash[j]));
        double score = -weight[j] / Math.log(u);
        if (score >= bestScore) { // ties: the later member in byte order wins
          bestScore = score;
          best = j;
        }
      }
      owner[i] = best;
      if (best >= 0) {
        load[best]++;
      } else {
        unassigned++;
      }
    }
    String[][] lists = new String[m][];
    for (int j = 0; j < m; j++) {
      lists[j] = new String[load[j]];
    }
    String[] un = new String[unassigned];
    int[] fill = new int[m];
    int k = 0;
    for (int i = 0; i < us.length; i++) {
      int o = owner[i];
      if (o >= 0) {
        lists[o][fill[o]++] = us[i];
      } else {
        un[k++] = us[i];
      }
    }
    Table.Builder b = Table.builder().trusted();
    for (int j = 0; j < m; j++) {
      b.putOwned(sorted[j].id(), lists[j]);
    }
    Arrays.sort(un, Names.BYTE_ORDER);
    return b.unassigned(Arrays.asList(un)).build();
  }

  @Override
  public String toString() {
    return NAME;
  }
}
