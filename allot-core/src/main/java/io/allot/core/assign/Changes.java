package io.allot.core.assign;

import java.util.Set;

/**
 * What changed between two assignment runs: a hint for {@link Assigner#update}. Immutable.
 *
 * @param membersAdded ids of members that were not there before
 * @param membersRemoved ids of members that are gone
 * @param membersChanged ids of members whose affinity or capacity changed
 * @param unitsAdded new units
 * @param unitsRemoved units that are gone
 */
public record Changes(
    Set<String> membersAdded,
    Set<String> membersRemoved,
    Set<String> membersChanged,
    Set<String> unitsAdded,
    Set<String> unitsRemoved) {

  /** Nothing changed. */
  public static final Changes NONE = new Changes(Set.of(), Set.of(), Set.of(), Set.of(), Set.of());

  public Changes {
    membersAdded = Set.copyOf(membersAdded);
    membersRemoved = Set.copyOf(membersRemoved);
    membersChanged = Set.copyOf(membersChanged);
    unitsAdded = Set.copyOf(unitsAdded);
    unitsRemoved = Set.copyOf(unitsRemoved);
  }

  public static Changes memberAdded(String id) {
    return new Changes(Set.of(id), Set.of(), Set.of(), Set.of(), Set.of());
  }

  public static Changes memberRemoved(String id) {
    return new Changes(Set.of(), Set.of(id), Set.of(), Set.of(), Set.of());
  }

  public static Changes memberChanged(String id) {
    return new Changes(Set.of(), Set.of(), Set.of(id), Set.of(), Set.of());
  }

  public static Changes units(Set<String> added, Set<String> removed) {
    return new Changes(Set.of(), Set.of(), Set.of(), added, removed);
  }

  /** True if only units changed. */
  public boolean unitsOnly() {
    return membersAdded.isEmpty() && membersRemoved.isEmpty() && membersChanged.isEmpty();
  }
}
