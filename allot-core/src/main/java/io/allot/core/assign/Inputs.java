package io.allot.core.assign;

import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;

/** Validates and normalises assigner inputs. Shared by all strategies. */
public final class Inputs {
  private Inputs() {}

  /**
   * Members sorted by id in byte order.
   *
   * @throws IllegalArgumentException if a member is null or an id appears twice
   */
  public static Member[] sortedMembers(Collection<Member> members) {
    if (members == null) {
      throw new IllegalArgumentException("members is null");
    }
    Member[] a = members.toArray(new Member[0]);
    for (Member m : a) {
      if (m == null) {
        throw new IllegalArgumentException("a member is null");
      }
    }
    boolean sorted = true; // callers often pass members in byte order already: O(M) then
    for (int i = 1; i < a.length && sorted; i++) {
      sorted = Names.compareBytes(a[i - 1].id(), a[i].id()) < 0;
    }
    if (sorted) {
      return a; // strictly increasing: no id twice
    }
    Arrays.sort(a, (x, y) -> Names.compareBytes(x.id(), y.id()));
    for (int i = 1; i < a.length; i++) {
      if (a[i].id().equals(a[i - 1].id())) {
        throw new IllegalArgumentException("member " + Names.quote(a[i].id()) + " is listed twice");
      }
    }
    return a;
  }

  /**
   * Units as an array, in the given order.
   *
   * @throws IllegalArgumentException if a unit is null, empty or listed twice
   */
  public static String[] units(Collection<String> units) {
    if (units == null) {
      throw new IllegalArgumentException("units is null");
    }
    String[] a = units.toArray(new String[0]);
    HashSet<String> seen = new HashSet<>(Math.max(16, (int) (a.length / 0.75f) + 1));
    for (String u : a) {
      Names.checkUnit(u);
      if (!seen.add(u)) {
        throw new IllegalArgumentException("unit " + Names.quote(u) + " is listed twice");
      }
    }
    return a;
  }
}
