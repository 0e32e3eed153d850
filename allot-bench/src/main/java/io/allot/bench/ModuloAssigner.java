package io.allot.bench;

import io.allot.core.hash.Hashing;
import io.allot.core.model.Member;
import java.util.Arrays;

/**
 * Baseline {@code modulo}: owner = {@code members[floorMod(hash64(unit), M)]}, members in byte order. One hash per
 * unit: the speed floor the real strategies are compared to. It does what the {@link io.allot.core.assign.Assigner}
 * contract requires of every strategy's input and output (validates members and units, builds a table) and nothing
 * else, so the ratio to it is the cost of the strategy's own logic.
 *
 * <p>Members with affinity 0 get nothing; other affinities and capacities are ignored (every unit is equally likely
 * to land on every eligible member). Almost every unit moves when the member count changes: that is the point of a
 * baseline. Benchmark code only.
 */
public final class ModuloAssigner extends BaselineAssigner {
  /** The name the benchmark uses. */
  public static final String NAME = "modulo";

  public ModuloAssigner() {
    super(NAME);
  }

  @Override
  int[] owners(Member[] sorted, String[] units) {
    int[] eligible = new int[sorted.length]; // indexes in sorted of the members with affinity > 0
    int m = 0;
    for (int j = 0; j < sorted.length; j++) {
      if (sorted[j].affinity() > 0) {
        eligible[m++] = j;
      }
    }
    int[] owner = new int[units.length];
    if (m == 0) {
      Arrays.fill(owner, -1);
      return owner;
    }
    for (int i = 0; i < units.length; i++) {
      owner[i] = eligible[(int) Math.floorMod(Hashing.hash64(units[i]), (long) m)];
    }
    return owner;
  }
}
