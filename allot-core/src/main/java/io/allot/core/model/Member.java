package io.allot.core.model;

import java.util.Objects;

/**
 * One service instance as the assignment engine sees it: an id, an affinity and an optional
 * capacity. Immutable.
 *
 * <p>The <b>affinity</b> is the member's weight: its share of the units is proportional to it.
 * Affinity 0 means "give me no units". The <b>capacity</b> caps the number of units it may get
 * ({@link #UNLIMITED} by default).
 */
public final class Member {
  /** Capacity of a member without a cap. */
  public static final int UNLIMITED = Integer.MAX_VALUE;
  /** Affinity of a member that did not say. */
  public static final int DEFAULT_AFFINITY = 1;

  private final String id;
  private final int affinity;
  private final int capacity;

  private Member(String id, int affinity, int capacity) {
    this.id = Names.checkMember(id);
    if (affinity < 0) {
      throw new IllegalArgumentException(
          "affinity of member " + Names.quote(id) + " is " + affinity + "; it must be >= 0");
    }
    if (capacity < 0) {
      throw new IllegalArgumentException(
          "capacity of member " + Names.quote(id) + " is " + capacity + "; it must be >= 0");
    }
    this.affinity = affinity;
    this.capacity = capacity;
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

  public String id() {
    return id;
  }

  public int affinity() {
    return affinity;
  }

  /** Maximum number of units, or {@link #UNLIMITED}. */
  public int capacity() {
    return capacity;
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

  @Override
  public boolean equals(Object o) {
    return o instanceof Member m && m.id.equals(id) && m.affinity == affinity && m.capacity == capacity;
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, affinity, capacity);
  }

  @Override
  public String toString() {
    return id + "(affinity=" + affinity + (capacity == UNLIMITED ? "" : ", capacity=" + capacity) + ")";
  }
}
