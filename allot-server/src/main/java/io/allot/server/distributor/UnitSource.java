package io.allot.server.distributor;

import io.allot.store.MemberRecord;
import java.util.Map;
import java.util.Optional;

/**
 * Where a pool's units come from. Two sources, asked in this order by {@link UnitsReader}: the pool's long-running
 * task specs ({@link TaskSpecUnits}: its live specs, with their costs and tombstones) when it has any, else the
 * units list ({@link UnitsList}). The distributor reads everything it needs about the units through this interface
 * and the {@link PoolUnits} it returns, never by asking which source it is.
 */
interface UnitSource {

  /** Reads the units now; empty if this source has none for the pool (the next source is asked). */
  Optional<PoolUnits> read();

  /** True if {@code last}, read from this source, is known to be current without reading again (a cheap check). */
  boolean unchanged(PoolUnits last);

  /**
   * True if no units keeps the table as it is (a units list not filled yet, as the original distributor did); false
   * if it means what it says, and the table empties.
   */
  boolean emptyKeepsTable();

  /** True if members' capacities count in unit costs ({@link PoolUnits#costs()}, {@code CostFit}). */
  boolean costed();

  /**
   * The housekeeping of a poll round for {@code units}, read from this source, at store time {@code nowMillis} with
   * the pool's member records (expired ones included). None by default.
   */
  default void maintain(PoolUnits units, Map<String, MemberRecord> records, long nowMillis) {}
}
