package io.allot.core.model;

import java.util.Objects;

/**
 * One service instance as the assignment engine sees it: an id, an affinity and an optional
 * capacity. Immutable.
 *
 * <p>The <b>affinity</b> is the member's weight: its share of the units is proportional to it.
 * Affinity 0 means "give me no units". The <b>capacity</b> caps the number of units it may get
 * ({@link #UNLIMITED} by default).
 *
 * @param id       the member's id ({@link Names#checkMember})
 * @param affinity its weight, at least 0
 * @param capacity the most units it may get, at least 0, or {@link #UNLIMITED}
 */
public record Member(String id, int affinity, int capacity) {
  /** Capacity of a member without a cap. */
  public static final int UNLIMITED = Integer.MAX_VALUE;
  /** Affinity of a member that did not say. */
  public static final int DEFAULT_AFFINITY = 1;

  /** A member; a bad id, a negative affinity or a negative capacity is an {@link IllegalArgumentException}. */
  public Member {
    id = Names.checkMember(id);
    if (affinity < 0) {
      throw new IllegalArgumentException(
          "affinity of member " + Names.quote(id) + " is " + affinity + "; it must be >= 0");
    }
    if (capacity < 0) {
      throw new IllegalArgumentException(
          "capacity of member " + Names.quote(id) + " is " + capacity + "; it must be >= 0");
    }
  }

  /** A member with affinity 1 and no capacity cap. */
  public static Member of(String id) {
    return new Member(id, DEFAULT_AFFINITY, UNLIMITED);
  }

  /** A member with the given affinity and no capacity cap. */
  public static Member of(String id, int affinity) {
    return new Member(id, affinity, UNLIMITED);
  }

  /** A member with the given affinity and capacity. */
  public static Member of(String id, int affinity, int capacity) {
    return new Member(id, affinity, capacity);
  }

  public boolean hasCapacityLimit() {
    return capacity != UNLIMITED;
  }

  public Member withAffinity(int affinity) {
    return new Member(id, affinity, capacity);
  }

  public Member withCapacity(int capacity) {
    return new Member(id, affinity, capacity);
  }

  /** As before this was a record, so that hash-ordered collections of members iterate as they did. */
  @Override
  public int hashCode() {
    return Objects.hash(id, affinity, capacity);
  }

  @Override
  public String toString() {
    return id + "(affinity=" + affinity + (capacity == UNLIMITED ? "" : ", capacity=" + capacity) + ")";
  }
}
