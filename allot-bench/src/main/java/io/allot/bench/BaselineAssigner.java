package io.allot.bench;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Inputs;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.Arrays;
import java.util.Collection;

/**
 * What the two baselines share: the {@link Assigner} contract's input checks and the building of the {@link Table}.
 * A baseline only picks an owner for each unit ({@link #owners}); it has no incremental form (the inherited {@link
 * #update} recomputes everything) and ignores the previous table. Benchmark code only.
 */
abstract class BaselineAssigner implements Assigner {
  private final String name;

  BaselineAssigner(String name) {
    this.name = name;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final Table assign(Collection<Member> members, Collection<String> units, Table previous) {
    Member[] sorted = Inputs.sortedMembers(members);
    String[] us = Inputs.units(units);
    return table(sorted, us, owners(sorted, us));
  }

  /**
   * The owner of each unit: {@code owner[i]} is the index in {@code sorted} of the member that gets {@code
   * units[i]}, or -1 if none does.
   *
   * @param sorted the members in byte order
   */
  abstract int[] owners(Member[] sorted, String[] units);

  /** Every member (in byte order) with its units in input order, and the unowned units in byte order. */
  private static Table table(Member[] sorted, String[] units, int[] owner) {
    int m = sorted.length;
    int[] load = new int[m];
    int unassigned = 0;
    for (int o : owner) {
      if (o >= 0) {
        load[o]++;
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
    for (int i = 0; i < units.length; i++) {
      int o = owner[i];
      if (o >= 0) {
        lists[o][fill[o]++] = units[i];
      } else {
        un[k++] = units[i];
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
    return name;
  }
}
