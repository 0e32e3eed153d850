package io.allot.server.distributor;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Changes;
import io.allot.core.assign.CostFit;
import io.allot.core.assign.HoldPlacement;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import io.allot.store.UnitHold;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Computes a pool's table: the strategy's table over the units free of holds, continued from the table in force
 * ({@link #previous()}), with the held units placed apart ({@link HoldPlacement}) and, for units with costs, the
 * capacities counted in costs ({@link CostFit}). Every step is memoized on its inputs (compared by identity where the
 * callers keep the same objects while nothing changed), so an unchanged fleet costs no recomputation, and a changed
 * one only the strategy's incremental update. Confined to the thread running the rounds.
 */
final class TableComputer {
  private final Assigner assigner;
  /** The table in force: the one published last, or read from the store when leadership began. */
  private Table previous = Table.EMPTY;
  // the inputs and result of the last computation, so an unchanged fleet costs no recomputation
  private Set<Member> memoMembers;
  private Set<String> memoUnits;
  private Table memoPrevious;
  private Table memoTable;
  /** The units free of holds, for {@link #freeOfHolds}: the same object while units and held units are unchanged. */
  private Set<String> free;
  private Set<String> freeHeld;
  private Set<String> freeOf;
  /** The last cost fit: its input table, units and members, and its result. */
  private Table fitIn;
  private PoolUnits fitUnits;
  private Set<Member> fitMembers;
  private Table fitOut;

  TableComputer(Assigner assigner) {
    this.assigner = assigner;
  }

  /** The table in force. */
  Table previous() {
    return previous;
  }

  /**
   * Leadership began: compute anew, continuing from the table in force that {@code inForce} reads from the store
   * (should the read fail, the next computation is still a full one).
   */
  void startFrom(Supplier<Table> inForce) {
    memoTable = null;
    previous = inForce.get();
  }

  /** {@code table} was published: it is the table in force. */
  void published(Table table) {
    previous = table;
  }

  /** Forgets every computation (the store lost state): the next one starts from scratch. */
  void forget() {
    memoTable = null;
    memoMembers = null;
    memoUnits = null;
    memoPrevious = null;
  }

  /**
   * The table for {@code live} and {@code units} with the binding {@code holds} ({@link HoldPlacement#binding}); the
   * same object as last time while nothing changed.
   */
  Table table(List<Member> live, PoolUnits units, Map<String, UnitHold> holds) {
    Table table = HoldPlacement.place(compute(live, freeOfHolds(units, holds.keySet())), live, holds,
        UnitHold::member);
    return units.source().costed() ? fitCosts(table, live, units) : table;
  }

  /** The strategy's table for {@code live} and {@code units}; an unchanged fleet costs no recomputation. */
  private Table compute(List<Member> live, Set<String> units) {
    Set<Member> liveSet = new HashSet<>(live);
    // the previous table being the memo's own result (it was published as computed) counts as unchanged: a table in
    // force for the same members and units stays as it is
    if (memoTable != null && (memoPrevious == previous || memoTable == previous || !assigner.usesPrevious())
        && liveSet.equals(memoMembers)
        && units.equals(memoUnits)) {
      return memoTable; // same inputs as the last computation: the table is a function of them
    }
    Table table;
    if (memoTable != null && (!assigner.usesPrevious() || memoTable == previous)) {
      // incremental: the strategy recomputes only what the changes can affect (same result as a full run)
      // the same units object: only members changed (no pass over the units)
      Changes changes = units == memoUnits
          ? Changes.between(memoMembers, liveSet, Set.of(), Set.of())
          : Changes.between(memoMembers, liveSet, memoUnits, units);
      table = assigner.update(memoTable, live, units, changes);
    } else {
      table = assigner.assign(live, units, previous);
    }
    memoMembers = liveSet;
    memoUnits = units;
    memoPrevious = previous;
    memoTable = table;
    return table;
  }

  /** {@code units} without the held ones: the same object while neither changed, so the memo holds. */
  private Set<String> freeOfHolds(PoolUnits units, Set<String> held) {
    if (held.isEmpty()) {
      return units.names();
    }
    if (free == null || freeOf != units.names() || !held.equals(freeHeld)) {
      LinkedHashSet<String> f = new LinkedHashSet<>(units.names());
      f.removeAll(held);
      free = f;
      freeOf = units.names();
      freeHeld = Set.copyOf(held);
    }
    return free;
  }

  /** The table with capacities counted in unit costs ({@link CostFit}); the same object while nothing changed. */
  private Table fitCosts(Table table, List<Member> live, PoolUnits units) {
    if (fitIn == table && fitUnits == units && new HashSet<>(live).equals(fitMembers)) {
      return fitOut;
    }
    fitIn = table;
    fitUnits = units;
    fitMembers = new HashSet<>(live);
    fitOut = CostFit.fit(table, live, units.costs());
    return fitOut;
  }
}
