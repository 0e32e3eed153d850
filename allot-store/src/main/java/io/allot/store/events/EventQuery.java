package io.allot.store.events;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Which events to read: those after the cursor {@code after} (exclusive; 0 for the oldest kept), in {@code pool}
 * (null: every pool and the store-wide ones) and of one of {@code kinds} (empty: any), at most {@code limit}, oldest
 * first.
 *
 * @param pool a pool, or null for all
 * @param kinds the kinds wanted, empty for all
 * @param after the cursor to read after, at least 0
 * @param limit 1..{@value #MAX_LIMIT}
 */
public record EventQuery(String pool, Set<EventKind> kinds, long after, int limit) {
  /** The most events one query returns. */
  public static final int MAX_LIMIT = 1000;
  /** The limit when none is given. */
  public static final int DEFAULT_LIMIT = 100;

  /** Checks the bounds; {@link IllegalArgumentException} naming the bad one. */
  public EventQuery {
    if (pool != null && pool.isEmpty()) {
      throw new IllegalArgumentException("pool: must be null or a non-empty name but was ''");
    }
    kinds = kinds == null || kinds.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(kinds));
    if (after < 0) {
      throw new IllegalArgumentException("after: must be a cursor (at least 0) but was " + after);
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit: must be in 1.." + MAX_LIMIT + " but was " + limit);
    }
  }

  /** Every event, from the oldest kept, {@value #DEFAULT_LIMIT} at a time. */
  public static EventQuery all() {
    return new EventQuery(null, Set.of(), 0, DEFAULT_LIMIT);
  }

  /** This query in {@code pool} (null: all pools). */
  public EventQuery inPool(String pool) {
    return new EventQuery(pool, kinds, after, limit);
  }

  /** This query for {@code kinds} only (empty: any). */
  public EventQuery ofKinds(Set<EventKind> kinds) {
    return new EventQuery(pool, kinds, after, limit);
  }

  /** This query after {@code cursor}. */
  public EventQuery after(long cursor) {
    return new EventQuery(pool, kinds, cursor, limit);
  }

  /** This query with at most {@code limit} events. */
  public EventQuery limit(int limit) {
    return new EventQuery(pool, kinds, after, limit);
  }

  /** Whether {@code e} is one this query asks for (ignoring {@code after} and {@code limit}). */
  public boolean matches(RecordedEvent e) {
    return (pool == null || pool.equals(e.pool())) && (kinds.isEmpty() || kinds.contains(e.kind()));
  }
}
