package io.allot.tasks.service;

import io.allot.store.Store;
import io.allot.store.Tables;
import io.allot.store.tasks.TaskSpecs;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which pools the task API serves and where a task may be created: the pool checks of {@link TaskService}, the same
 * for the REST API, the gRPC service and {@code allot task}. Immutable.
 *
 * <p>A pool is known by one of three rules: it is in a fixed list (a server's services lists); or the store shows it
 * served (a client on the store, which knows no server's list: a distributor holds the pool's lease on the table now,
 * or the pool has held task specs, so its tasks stay reachable while no distributor runs); or any pool (an embedding
 * application that lists none). A create is refused in a pool that takes its units from the units list: a pool with
 * task specs ignores its units list, so its first task would drop every unit of the list from the table.
 */
final class PoolRules {
  private enum Known { LISTED, SERVED, ANY }

  private final Store store;
  private final String tableKey;
  private final Known known;
  private final List<String> pools; // the LISTED pools, else empty
  private final String unitsList; // null: the pools have no units list
  private final Map<String, String> unitsLists; // pool -> its own units list, over unitsList; immutable

  private PoolRules(Store store, String tableKey, Known known, List<String> pools, String unitsList) {
    this(store, tableKey, known, pools, unitsList, Map.of());
  }

  private PoolRules(Store store, String tableKey, Known known, List<String> pools, String unitsList,
      Map<String, String> unitsLists) {
    this.store = Objects.requireNonNull(store, "store");
    this.tableKey = tableKey;
    this.known = known;
    this.pools = pools;
    this.unitsList = unitsList;
    this.unitsLists = unitsLists;
  }

  static PoolRules listed(Store store, String tableKey, Collection<String> pools) {
    List<String> copy = List.copyOf(pools);
    if (copy.isEmpty()) {
      throw new IllegalArgumentException("pools must not be empty");
    }
    copy.forEach(Store::checkPool);
    return new PoolRules(store, tableKey, Known.LISTED, copy, null);
  }

  static PoolRules served(Store store, String tableKey) {
    return new PoolRules(store, tableKey, Known.SERVED, List.of(), null);
  }

  static PoolRules any(Store store, String tableKey) {
    return new PoolRules(store, tableKey, Known.ANY, List.of(), null);
  }

  /** These rules with the units list {@code key} feeding the pools that have no task specs. */
  PoolRules withUnitsList(String key) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("units list: key must not be empty, got '" + key + "'");
    }
    return new PoolRules(store, tableKey, known, pools, key, unitsLists);
  }

  /**
   * These rules with a units list of its own for each pool of {@code byPool} (pool -> key; several distributors on
   * one table, each with its units list, as {@code allot dev} runs); other pools keep the list of
   * {@link #withUnitsList}, if any.
   */
  PoolRules withUnitsLists(Map<String, String> byPool) {
    byPool.forEach((pool, key) -> {
      Store.checkPool(pool);
      if (key == null || key.isBlank()) {
        throw new IllegalArgumentException("units list of pool '" + pool + "': key must not be empty, got '" + key
            + "'");
      }
    });
    return new PoolRules(store, tableKey, known, pools, unitsList, Map.copyOf(byPool));
  }

  /** The units list that feeds {@code pool} (its own, else the common one), or null. */
  String unitsListOf(String pool) {
    return unitsLists.getOrDefault(pool, unitsList);
  }

  /** The pools of a fixed list; empty for the other rules. */
  List<String> listed() {
    return pools;
  }

  /** Refuses (404, about the pool) a pool these rules do not know. */
  void checkKnown(String pool) {
    switch (known) {
      case LISTED -> {
        if (!pools.contains(pool)) {
          throw TaskServiceException.aboutPool(TaskServiceException.ErrorKind.NOT_FOUND,
              "unknown pool '" + pool + "'; known pools: " + String.join(", ", pools));
        }
      }
      case SERVED -> {
        boolean led = TaskService.guard(() -> store.leadership().current(Tables.leaseName(tableKey, pool))).isPresent();
        if (!led && TaskService.guard(TaskService.specsOf(store, pool)::version) == 0) {
          throw TaskServiceException.aboutPool(TaskServiceException.ErrorKind.NOT_FOUND, "unknown pool '" + pool
              + "': no distributor serves it into table '" + tableKey + "' now and it has never held a task");
        }
      }
      case ANY -> { }
    }
  }

  /**
   * Refuses (409, about the pool) a create in {@code pool} while it takes its units from a non-empty units list: the
   * list holds units and the pool has no task spec, live or deleted (the distributor's rule: {@code TaskSpecUnits}).
   * The specs are read only when the list holds units. The check and the write are two steps: a units list filled
   * between them is ignored for the pool, as for any pool with tasks.
   */
  void checkCreate(String pool, TaskSpecs specs) {
    String unitsList = unitsListOf(pool);
    if (unitsList == null) {
      return;
    }
    int units = TaskService.guard(() -> store.seedKeys().list(unitsList)).size();
    if (units > 0 && (TaskService.guard(specs::version) == 0 || TaskService.guard(specs::list).isEmpty())) {
      throw TaskServiceException.aboutPool(TaskServiceException.ErrorKind.CONFLICT, "pool '" + pool
          + "' takes its units from the units list '" + unitsList + "' (" + units + " units); a pool with tasks "
          + "ignores its units list, so a task would drop them all from the table: create tasks in a pool without "
          + "units, or empty '" + unitsList + "' first");
    }
  }
}
