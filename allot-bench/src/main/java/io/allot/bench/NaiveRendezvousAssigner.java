package io.allot.bench;

import io.allot.core.hash.Hashing;
import io.allot.core.model.Member;

/**
 * Baseline {@code naive-rendezvous}: textbook weighted rendezvous hashing, flat O(N·M) on one thread. For unit
 * {@code u} and member {@code m} with affinity {@code w > 0}: {@code score = -w /
 * Math.log(unitInterval(mix64(hash64(u) ^ hash64(m))))}; the unit goes to the highest score, ties to the member later
 * in byte order. No grouping, no bounds, no parallelism, no incremental form: the reference a tuned rendezvous is
 * measured against.
 *
 * <p>Only a member's id hash is computed once per run instead of once per pair. Members with affinity 0 get nothing;
 * capacities are ignored. Benchmark code only.
 */
public final class NaiveRendezvousAssigner extends BaselineAssigner {
  /** The name the benchmark uses. */
  public static final String NAME = "naive-rendezvous";

  public NaiveRendezvousAssigner() {
    super(NAME);
  }

  @Override
  int[] owners(Member[] sorted, String[] units) {
    int m = sorted.length;
    long[] memberHash = new long[m];
    double[] weight = new double[m];
    for (int j = 0; j < m; j++) {
      memberHash[j] = Hashing.hash64(sorted[j].id());
      weight[j] = sorted[j].affinity();
    }
    int[] owner = new int[units.length];
    for (int i = 0; i < units.length; i++) {
      long h = Hashing.hash64(units[i]);
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
    }
    return owner;
  }
}
