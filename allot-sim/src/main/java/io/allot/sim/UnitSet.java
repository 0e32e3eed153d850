package io.allot.sim;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The work units (the work-units list the distributor reads), which change during a run. Not thread-safe (confined to
 * the simulation's thread).
 */
final class UnitSet {
  private final TreeSet<String> units = new TreeSet<>();
  private int next;

  UnitSet(int initial) {
    for (int i = 0; i < initial; i++) {
      add();
    }
  }

  /** Adds a new unit; returns its name. */
  String add() {
    String u = String.format("u%02d", ++next);
    units.add(u);
    return u;
  }

  /** Removes the {@code i}-th unit (modulo the size); returns its name. */
  String remove(int i) {
    List<String> list = new ArrayList<>(units);
    String u = list.get(Math.floorMod(i, list.size()));
    units.remove(u);
    return u;
  }

  int size() {
    return units.size();
  }

  boolean contains(String unit) {
    return units.contains(unit);
  }

  /** A snapshot, sorted. */
  Collection<String> snapshot() {
    return List.copyOf(units);
  }
}
