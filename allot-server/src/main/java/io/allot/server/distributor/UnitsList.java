package io.allot.server.distributor;

import io.allot.store.SeedKeys;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The units list ({@code -workunits-namespace}, the original distributor's list): each valid unit once, in list
 * order. An empty or comma-holding name is skipped and a repeated one counted once, each reported as bad data.
 *
 * @param namespace the units list's key ({@code -workunits-namespace})
 */
record UnitsList(SeedKeys seedKeys, String namespace, BadData badData) implements UnitSource {

  @Override
  public Optional<PoolUnits> read() {
    LinkedHashSet<String> units = new LinkedHashSet<>();
    for (String u : seedKeys.list(namespace)) {
      if (u.isEmpty()) {
        badData.report("unit", u, namespace + ": empty unit name skipped");
      } else if (u.indexOf(',') >= 0) {
        badData.report("unit", u, namespace + ": unit '" + u
            + "' contains ',', which the distribution hash cannot store; skipped");
      } else if (!units.add(u)) {
        badData.report("duplicate unit", u, namespace + ": unit '" + u + "' is listed twice; counted once");
      }
    }
    return Optional.of(new PoolUnits(this, units, Map.of(), Map.of(), 0));
  }

  /** Never known without a read: the list has no version. */
  @Override
  public boolean unchanged(PoolUnits last) {
    return false;
  }

  @Override
  public boolean emptyKeepsTable() {
    return true;
  }

  @Override
  public boolean costed() {
    return false;
  }
}
