package io.allot.core.assign;

import io.allot.core.model.Member;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
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
  /**
   * The changes that turn ({@code membersBefore}, {@code unitsBefore}) into ({@code membersAfter}, {@code unitsAfter});
   * a member whose affinity or capacity differs is "changed".
   */
  public static Changes between(Collection<Member> membersBefore, Collection<Member> membersAfter,
      Collection<String> unitsBefore, Collection<String> unitsAfter) {
    Map<String, Member> before = new HashMap<>();
    membersBefore.forEach(m -> before.put(m.id(), m));
    Map<String, Member> after = new HashMap<>();
    membersAfter.forEach(m -> after.put(m.id(), m));
    Set<String> added = new HashSet<>();
    Set<String> changed = new HashSet<>();
    after.forEach((id, m) -> {
      Member old = before.get(id);
      if (old == null) {
        added.add(id);
      } else if (!old.equals(m)) {
        changed.add(id);
      }
    });
    Set<String> removed = new HashSet<>(before.keySet());
    removed.removeAll(after.keySet());
    Set<String> ub = unitsBefore instanceof Set<String> set ? set : new HashSet<>(unitsBefore);
    Set<String> ua = unitsAfter instanceof Set<String> set ? set : new HashSet<>(unitsAfter);
    Set<String> unitsAdded = new HashSet<>();
    for (String u : ua) {
      if (!ub.contains(u)) {
        unitsAdded.add(u);
      }
    }
    Set<String> unitsRemoved = new HashSet<>();
    for (String u : ub) {
      if (!ua.contains(u)) {
        unitsRemoved.add(u);
      }
    }
    return new Changes(added, removed, changed, unitsAdded, unitsRemoved);
  }

  public boolean unitsOnly() {
    return membersAdded.isEmpty() && membersRemoved.isEmpty() && membersChanged.isEmpty();
  }
}
