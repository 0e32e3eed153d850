package io.allot.server.distributor;

import io.allot.store.tasks.TaskSpec;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * A pool's units as one read of a {@link UnitSource} found them: the unit names in order, and for long-running
 * tasks the costs other than 1, the tombstones (deleted specs by name) and the specs' version (0 for the units list).
 * Immutable; the distributor keeps the same object while a new read finds the {@linkplain #sameAs same} units, so its
 * memos (which compare by identity) hold.
 */
final class PoolUnits {
  private final UnitSource source;
  private final Set<String> names;
  private final Map<String, Integer> costs;
  private final Map<String, TaskSpec> tombstones;
  private final long version;

  PoolUnits(UnitSource source, LinkedHashSet<String> names, Map<String, Integer> costs,
      Map<String, TaskSpec> tombstones, long version) {
    this.source = source;
    this.names = Collections.unmodifiableSet(names);
    this.costs = Collections.unmodifiableMap(costs);
    this.tombstones = Collections.unmodifiableMap(tombstones);
    this.version = version;
  }

  /** The source that read these units. */
  UnitSource source() {
    return source;
  }

  /** The unit names in order, each once; the same object for the life of this value. */
  Set<String> names() {
    return names;
  }

  int size() {
    return names.size();
  }

  boolean isEmpty() {
    return names.isEmpty();
  }

  /** Unit to cost, for the units whose cost is not 1. */
  Map<String, Integer> costs() {
    return costs;
  }

  /** The deleted task specs not purged yet, by name in order; empty for the units list. */
  Map<String, TaskSpec> tombstones() {
    return tombstones;
  }

  /** The version of the task specs read ({@code TaskSpecs.version()}); 0 for the units list. */
  long version() {
    return version;
  }

  /** Same source, same unit names, same costs and tombstones (the version aside). */
  boolean sameAs(PoolUnits other) {
    return other != null && source == other.source && names.equals(other.names) && costs.equals(other.costs)
        && tombstones.equals(other.tombstones);
  }
}
