package io.allot.server.distributor;

import io.allot.store.MemberRecord;
import io.allot.store.Ownership;
import io.allot.store.UnitOwner;
import io.allot.store.tasks.TaskSpec;
import io.allot.store.tasks.TaskSpecs;
import io.allot.tasks.status.PoolState;
import io.allot.tasks.status.TaskStatuses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool's long-running task specs as its units: the live specs by name (byte order, as the store lists them), with
 * the costs other than 1 and the tombstones, as of the specs' version. A pool that never had a spec, or has none
 * left, has none here (its units are the units list). The version counts every change of a spec, so an unchanged
 * version needs no read. A poll round purges the tombstones whose retention is over and that nobody can run any more
 * (the rule is {@link TaskStatuses#purgeable}, the one the task API's {@code DELETED} status follows).
 */
final class TaskSpecUnits implements UnitSource {
  private static final Logger log = LoggerFactory.getLogger(PoolDistributor.class);
  private final TaskSpecs specs;
  private final Ownership ownership;
  private final String pool;
  private final Duration retention;
  private final long clockMarginMillis;

  TaskSpecUnits(TaskSpecs specs, Ownership ownership, String pool, Duration retention, long clockMarginMillis) {
    this.specs = specs;
    this.ownership = ownership;
    this.pool = pool;
    this.retention = retention;
    this.clockMarginMillis = clockMarginMillis;
  }

  @Override
  public Optional<PoolUnits> read() {
    long version = specs.version(); // before the list: a change between the two is read again at the next poll
    if (version == 0) { // the pool never had a task spec
      return Optional.empty();
    }
    List<TaskSpec> all = specs.list();
    if (all.isEmpty()) {
      return Optional.empty();
    }
    LinkedHashSet<String> names = new LinkedHashSet<>();
    Map<String, Integer> costs = new HashMap<>();
    Map<String, TaskSpec> tombstones = new TreeMap<>();
    for (TaskSpec s : all) {
      if (s.deleted()) {
        tombstones.put(s.name(), s);
      } else {
        names.add(s.name());
        if (s.cost() != 1) {
          costs.put(s.name(), s.cost());
        }
      }
    }
    return Optional.of(new PoolUnits(this, names, costs, tombstones, version));
  }

  /** The specs' version counts every change of a spec: the same version, nothing to read again. */
  @Override
  public boolean unchanged(PoolUnits last) {
    return specs.version() == last.version();
  }

  @Override
  public boolean emptyKeepsTable() {
    return false;
  }

  @Override
  public boolean costed() {
    return true;
  }

  /**
   * Purges the tombstones deleted more than the task retention ago that no member can run any more: no owner, or an
   * owner whose session is gone or whose lease has been over for the store's clock margin.
   */
  @Override
  public void maintain(PoolUnits units, Map<String, MemberRecord> records, long nowMillis) {
    List<String> due = new ArrayList<>();
    units.tombstones().forEach((name, spec) -> {
      if (TaskStatuses.retentionOver(spec, nowMillis, retention)) {
        due.add(name);
      }
    });
    if (due.isEmpty()) {
      return;
    }
    Map<String, UnitOwner> owners = ownership.ownersOf(due);
    PoolState state = new PoolState(nowMillis, records, Map.of(), Map.of(), clockMarginMillis);
    for (String name : due) {
      TaskSpec tombstone = units.tombstones().get(name);
      if (TaskStatuses.purgeable(tombstone, owners.get(name), state, retention)
          && specs.purge(name, tombstone.revision())) {
        log.info("pool={} task {} deleted {} ms ago and stopped everywhere: tombstone purged", pool, name,
            nowMillis - tombstone.deletedMillis());
      }
    }
  }
}
