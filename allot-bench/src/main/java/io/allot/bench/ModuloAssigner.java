package io.allot.bench;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Inputs;
import io.allot.core.assign.Table;
import io.allot.core.hash.Hashing;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Baseline {@code modulo}: owner = {@code members[floorMod(hash64(unit), M)]}, members in byte
 * order. One hash per unit: the speed floor the real strategies are compared to. It does what the
 * {@link Assigner} contract requires of every strategy's input and output (validates members and
 * units, builds a {@link Table}) and nothing else, so the ratio to it is the cost of the strategy's
 * own logic.
 *
 * <p>Members with affinity 0 get nothing; other affinities and capacities are ignored (every unit
 * is equally likely to land on every eligible member). Almost every unit moves when the member
 * count changes: that is the point of a baseline. Benchmark code only.
 */
public final class ModuloAssigner implements Assigner {
  /** The name the benchmark uses. */
  public static final String NAME = "modulo";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Table assign(Collection<Member> members, Collection<String> units, Table previous) {
    Member[] sorted = Inputs.sortedMembers(members);
    String[] us = Inputs.units(units);
    List<Member> eligible = new ArrayList<>(sorted.length);
    for (Member m : sorted) {
      if (m.affinity() > 0) {
        eligible.add(m);
      }
    }
    Table.Builder b = Table.builder().trusted();
    for (Member m : sorted) {
      b.member(m.id());
    }
    int m = eligible.size();
    if (m == 0) {
      String[] un = us.clone();
      Arrays.sort(un, Names.BYTE_ORDER);
      return b.unassigned(Arrays.asList(un)).build();
    }
    int[] owner = new int[us.length];
    int[] load = new int[m];
    for (int i = 0; i < us.length; i++) {
      int o = (int) Math.floorMod(Hashing.hash64(us[i]), (long) m);
      owner[i] = o;
      load[o]++;
    }
    String[][] lists = new String[m][];
    for (int j = 0; j < m; j++) {
      lists[j] = new String[load[j]];
    }
    int[] fill = new int[m];
    for (int i = 0; i < us.length; i++) {
      int o = owner[i];
      lists[o][fill[o]++] = us[i];
    }
    for (int j = 0; j < m; j++) {
      b.putOwned(eligible.get(j).id(), lists[j]);
    }
    return b.build();
  }

  @Override
  public String toString() {
    return NAME;
  }
}
