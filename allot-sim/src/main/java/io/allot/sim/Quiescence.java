package io.allot.sim;

import io.allot.store.UnitOwner;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Invariant 3, nothing lost: once the faults have stopped, the system must reach a state where every member process
 * runs with a valid lease, the published table gives every unit of the unit set to exactly one running member, and
 * every unit runs exactly once, on that member, under the token the store holds for it (and nothing else runs).
 * The checker reads the store directly (an oracle, not a simulated call).
 */
final class Quiescence {
  private Quiescence() {}

  /** What still keeps the system from that state, or null once it is there. */
  static String missing(Sim sim, Fleet fleet, Ledger ledger, SimStore store, UnitSet units) {
    for (String id : fleet.ids()) {
      Fleet.Proc p = fleet.speaker(SimProcess.memberId(id));
      if (p == null) {
        return "no process of " + id + " is up";
      }
      SimProcess m = p.member();
      if (!p.running()) {
        return m.name() + " is " + m.phase();
      }
      if (!m.leaseValid()) {
        return m.name() + " has no valid lease";
      }
      if (m.pausedUntil() > sim.now()) {
        return m.name() + " is paused";
      }
    }
    Map<String, String> table = new TreeMap<>();
    for (Map.Entry<String, List<String>> e : new TreeMap<>(store.store().tables().units(SimProcess.TABLE)).entrySet()) {
      for (String u : e.getValue()) {
        String before = table.put(u, e.getKey());
        if (before != null) {
          return "unit " + u + " is in the table twice (" + before + ", " + e.getKey() + ")";
        }
      }
    }
    if (!table.keySet().equals(new java.util.TreeSet<>(units.snapshot()))) {
      return "the table holds " + table.keySet() + ", the units are " + units.snapshot();
    }
    Map<String, UnitOwner> owners = store.store().ownership(SimProcess.POOL).owners();
    for (Map.Entry<String, String> e : table.entrySet()) {
      String u = e.getKey();
      Fleet.Proc p = fleet.speaker(e.getValue());
      if (p == null || !p.running()) {
        return "unit " + u + " is given to " + e.getValue() + ", which does not run";
      }
      List<Ledger.Run> open = ledger.open().get(u);
      if (open == null || open.size() != 1) {
        return "unit " + u + " runs " + (open == null ? 0 : open.size()) + " times";
      }
      Ledger.Run r = open.get(0);
      if (!r.process.equals(p.member().name())) {
        return "unit " + u + " runs on " + r.process + " but the table gives it to " + p.member().name();
      }
      UnitOwner o = owners.get(u);
      if (o == null || !o.member().equals(r.member) || o.token() != r.token) {
        return "unit " + u + " runs with token " + store.rel(r.token) + " but the store's owner is "
            + (o == null ? "nobody" : o.member() + "#" + store.rel(o.token()));
      }
    }
    for (String u : ledger.open().keySet()) {
      if (!units.contains(u)) {
        return "unit " + u + " was removed but still runs";
      }
    }
    return null;
  }
}
