package io.allot.tasks.service;

import io.allot.store.MemberRecord;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.UnitOwner;
import io.allot.store.tasks.TaskCreated;
import io.allot.store.tasks.TaskLimits;
import io.allot.store.tasks.TaskSpec;
import io.allot.store.tasks.TaskSpecs;
import io.allot.tasks.status.PoolState;
import io.allot.tasks.status.TaskStatus;
import io.allot.tasks.status.TaskStatuses;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The operations of the task management API, shared by the REST API, the gRPC service and {@code allot task}:
 * every check, every status and every error is made here once. Thread-safe (it holds no state but the store).
 *
 * <p>Every input is checked before anything is written, and a refused request changes nothing: an unknown pool is
 * a 404 naming it (the rules of {@link PoolRules}: the server's list, or for a client on the store a pool a
 * distributor serves or that has held tasks); a create in a pool fed by its units list a 409 naming the list; a bad name ({@link TaskLimits#checkName}), arguments that are not a JSON object, or a cost outside
 * 1..{@value TaskLimits#MAX_COST} a 400 naming the field; arguments over {@value TaskLimits#MAX_ARGS_BYTES} bytes (in
 * canonical form) a 413 naming {@code args}. Arguments are stored in canonical form ({@link TaskJson#canonicalArgs}),
 * so creating a task again with the same arguments written otherwise is idempotent. A store that cannot be reached
 * is a 503.
 */
public final class TaskService {
  private final Store store;
  private final String tableKey;
  private final PoolRules pools;
  private final Function<String, Map<String, Boolean>> pingVerdicts;

  private TaskService(Store store, String tableKey, PoolRules pools) {
    this(store, tableKey, pools, pool -> Map.of());
  }

  private TaskService(Store store, String tableKey, PoolRules pools,
      Function<String, Map<String, Boolean>> pingVerdicts) {
    this.store = Objects.requireNonNull(store, "store");
    this.tableKey = tableKey;
    this.pools = pools;
    this.pingVerdicts = Objects.requireNonNull(pingVerdicts, "pingVerdicts");
  }

  /** The store this service works on (for the routes next to it, e.g. the event history). */
  public Store store() {
    return store;
  }

  private static String checkTable(String tableKey) {
    if (tableKey == null || tableKey.isBlank()) {
      throw new IllegalArgumentException("table key must not be empty");
    }
    return tableKey;
  }

  /**
   * A service for the pools {@code pools} (a server's services lists); others are unknown (404).
   *
   * @param tableKey the assignment table the distributor publishes into (its distribution namespace)
   */
  public static TaskService forPools(Store store, String tableKey, Collection<String> pools) {
    return new TaskService(store, checkTable(tableKey), PoolRules.listed(store, tableKey, pools));
  }

  /**
   * A service for the pools the store shows served (a client on the store, such as the CLI, which knows no server's
   * list): a distributor holds the pool's lease on {@code tableKey} now, or the pool has held a task spec; others
   * are unknown (404 naming the pool and the table). {@link #pools()} is empty.
   */
  public static TaskService servedPools(Store store, String tableKey) {
    return new TaskService(store, checkTable(tableKey), PoolRules.served(store, tableKey));
  }

  /** A service that accepts any pool name (an application that lists none); {@link #pools()} is empty. */
  public static TaskService anyPool(Store store, String tableKey) {
    return new TaskService(store, checkTable(tableKey), PoolRules.any(store, tableKey));
  }

  /**
   * This service with the units list {@code key} (the distributor's {@code -workunits-namespace}): a create in a pool
   * that takes its units from that list (no task spec, live or deleted, and the list not empty) is a conflict (409)
   * naming the pool and the list, nothing written, since a pool with tasks ignores its units list and its first task
   * would drop every unit from the table.
   *
   * @throws IllegalArgumentException if {@code key} is empty, naming the units list
   */
  public TaskService withUnitsList(String key) {
    return new TaskService(store, tableKey, pools.withUnitsList(key), pingVerdicts);
  }

  /**
   * This service with the distributor's verdicts on the members it judges by pings (original-style services without
   * a member record): {@code verdicts} gives, for a pool, each such member to whether it is live (the distributor's
   * {@code DistributorServer.pingVerdicts}). {@link #pools()} counts the live ones in {@code liveMembers} and
   * {@link #members} lists them with {@code judgedBy} {@value MemberView#PING}. A member with a record is judged by
   * its lease, whatever the verdicts say.
   */
  public TaskService withPingVerdicts(Function<String, Map<String, Boolean>> verdicts) {
    return new TaskService(store, tableKey, pools, Objects.requireNonNull(verdicts, "verdicts"));
  }

  /**
   * Checks that this service knows {@code pool} (the same rule as every operation's): 400 for an empty name, 404
   * naming it for a pool it does not serve.
   */
  public void checkPool(String pool) {
    specs(pool);
  }

  /**
   * This service with a units list of its own for each pool of {@code byPool} (pool -> key), as
   * {@link #withUnitsList} for each: where several distributors publish into one table, each with its own
   * {@code -workunits-namespace}, a 409 names the list that feeds that pool. Pools not in the map keep the list of
   * {@link #withUnitsList}, if any.
   *
   * @throws IllegalArgumentException if a key is empty or a pool name invalid, naming it
   */
  public TaskService withUnitsLists(Map<String, String> byPool) {
    return new TaskService(store, tableKey, pools.withUnitsLists(byPool), pingVerdicts);
  }

  /**
   * The units list that feeds {@code pool} when it has no task spec ({@link #withUnitsList}, {@link #withUnitsLists}),
   * or null if none does.
   */
  public String unitsListOf(String pool) {
    return pools.unitsListOf(pool);
  }

  /**
   * What a create did.
   *
   * @param created true if a new spec was written (HTTP 201), false if an identical live one was there (200)
   * @param task    the task as it is now
   */
  public record Written(boolean created, TaskView task) {}

  /**
   * Creates task {@code name} in {@code pool}: 201 ({@code created}) if new, 200 if a live task of that name with
   * the same canonical arguments and cost exists (idempotent), 409 if one exists with other arguments or cost.
   * A tombstone of that name is replaced (a new incarnation, its revision one more).
   *
   * @param argsJson the arguments as JSON text; must be an object
   * @param cost     1..{@value TaskLimits#MAX_COST}
   */
  public Written create(String pool, String name, String argsJson, int cost) {
    TaskSpecs specs = specs(pool);
    checkName(name);
    String args = TaskJson.canonicalArgs(argsJson);
    checkCost(cost);
    pools.checkCreate(pool, specs);
    TaskCreated c = guard(() -> specs.create(name, args, cost));
    if (c.outcome() == TaskCreated.Outcome.CONFLICT) {
      throw new TaskServiceException(TaskServiceException.ErrorKind.CONFLICT, "name: task '" + name + "' exists in pool '" + pool + "' with other "
          + (c.spec().args().equals(args) ? "cost (" + c.spec().cost() + ")" : "args")
          + "; update it with PUT or delete it first");
    }
    return new Written(c.outcome() == TaskCreated.Outcome.CREATED, view(pool, c.spec()));
  }

  /**
   * Replaces the arguments (and cost, when {@code cost} is not null) of the live task {@code name}; 404 if there is
   * none (a deleted task cannot be updated: create it again). A worker running it restarts it with the new
   * arguments.
   */
  public TaskView update(String pool, String name, String argsJson, Integer cost) {
    TaskSpecs specs = specs(pool);
    checkName(name);
    String args = TaskJson.canonicalArgs(argsJson);
    if (cost != null) {
      checkCost(cost);
    }
    // without a cost: one write that keeps the cost the spec has then (never a read and a write back over a
    // concurrent update's cost)
    TaskSpec updated = guard(() -> cost == null ? specs.updateArgs(name, args) : specs.update(name, args, cost))
        .orElseThrow(() -> noTask(pool, name));
    return view(pool, updated);
  }

  /**
   * Requests deletion of task {@code name} (HTTP 202: it converges to Deleted once no live claim remains); deleting
   * a deleted task again is harmless. 404 if there is no such task.
   */
  public TaskView delete(String pool, String name) {
    TaskSpecs specs = specs(pool);
    checkName(name);
    TaskSpec deleted = guard(() -> specs.delete(name)).orElseThrow(() -> noTask(pool, name));
    return view(pool, deleted);
  }

  /** Task {@code name}, live or deleted; 404 if there is none. */
  public TaskView get(String pool, String name) {
    TaskSpecs specs = specs(pool);
    checkName(name);
    TaskSpec spec = guard(() -> specs.get(name)).orElseThrow(() -> noTask(pool, name));
    return view(pool, spec);
  }

  /**
   * Every task of {@code pool} (live and deleted), sorted by name; only those with status {@code status} when it is
   * not null or empty (a {@link TaskStatus} name, case-insensitive; else 400 naming {@code status}).
   */
  public List<TaskView> list(String pool, String status) {
    TaskStatus only = null;
    if (status != null && !status.isEmpty()) {
      try {
        only = TaskStatus.parse(status);
      } catch (IllegalArgumentException e) {
        throw TaskServiceException.badRequest("status: " + e.getMessage());
      }
    }
    TaskSpecs specs = specs(pool);
    List<TaskSpec> all = guard(specs::list);
    List<String> names = all.stream().map(TaskSpec::name).toList();
    Map<String, UnitOwner> owners = names.isEmpty() ? Map.of() : guard(() -> store.ownership(pool).ownersOf(names));
    PoolState state = poolState(pool, all);
    List<TaskView> out = new ArrayList<>();
    for (TaskSpec s : all) {
      TaskView v = TaskView.of(s, TaskStatuses.derive(s, owners.get(s.name()), state));
      if (only == null || v.status() == only) {
        out.add(v);
      }
    }
    return out;
  }

  /** The pools this service serves, with counts; empty for {@link #servedPools} and {@link #anyPool}. */
  public List<PoolInfo> pools() {
    if (pools.listed().isEmpty()) {
      return List.of();
    }
    long now = guard(() -> store.clock().timeMillis());
    List<PoolInfo> out = new ArrayList<>();
    for (String p : pools.listed()) {
      List<TaskSpec> all = guard(() -> store.taskSpecs(p).list());
      int deleted = (int) all.stream().filter(TaskSpec::deleted).count();
      Map<String, MemberRecord> records = guard(() -> store.membership(p).members());
      int live = (int) records.values().stream().filter(m -> m.liveAt(now)).count();
      live += (int) pingVerdicts.apply(p).entrySet().stream()
          .filter(e -> e.getValue() && !records.containsKey(e.getKey())).count();
      out.add(new PoolInfo(p, all.size() - deleted, deleted, live));
    }
    return out;
  }

  /** The attributes of {@code meta} other than its version and zone. */
  private static Map<String, String> labels(io.allot.store.MemberMeta meta) {
    Map<String, String> out = new java.util.TreeMap<>(meta.attributes());
    out.remove(io.allot.store.MemberMeta.VERSION);
    out.remove(io.allot.store.MemberMeta.ZONE);
    return out;
  }

  /** The members of {@code pool}, sorted by id, with what the table gives them. */
  public List<MemberView> members(String pool) {
    TaskSpecs specs = specs(pool);
    PoolState state = poolState(pool, guard(specs::list));
    List<MemberView> out = new ArrayList<>();
    state.members().values().stream().sorted(java.util.Comparator.comparing(MemberRecord::id)).forEach(m ->
        out.add(new MemberView(m.id(), m.liveAt(state.nowMillis()), m.leaseUntilMillis(), m.affinity(),
            m.capacity() == Integer.MAX_VALUE ? null : m.capacity(), state.used(m.id()), m.meta().version(),
            MemberView.LEASE, m.meta().zone(), labels(m.meta()))));
    pingVerdicts.apply(pool).forEach((id, live) -> {
      if (!state.members().containsKey(id)) {
        out.add(new MemberView(id, live, 0, 1, null, state.used(id), null, MemberView.PING));
      }
    });
    out.sort(java.util.Comparator.comparing(MemberView::id));
    return out;
  }

  /** The view of {@code spec} as the store has it now. */
  private TaskView view(String pool, TaskSpec spec) {
    UnitOwner owner = guard(() -> store.ownership(pool).ownersOf(List.of(spec.name()))).get(spec.name());
    Map<String, MemberRecord> members = guard(() -> store.membership(pool).members());
    // the other live tasks' costs matter only for a live task and only against a member with a capacity limit
    // (TaskStatuses' room rule: a member without one always has room); otherwise the pool's specs are not read, so
    // a create or an update before any limited member registered costs O(1) reads, not the whole pool
    boolean costsMatter = !spec.deleted()
        && members.values().stream().anyMatch(m -> m.capacity() != Integer.MAX_VALUE);
    PoolState state = poolState(members, costsMatter ? guard(() -> store.taskSpecs(pool).list()) : List.of());
    return TaskView.of(spec, TaskStatuses.derive(spec, owner, state));
  }

  private PoolState poolState(String pool, List<TaskSpec> specs) {
    return poolState(guard(() -> store.membership(pool).members()), specs);
  }

  private PoolState poolState(Map<String, MemberRecord> members, List<TaskSpec> specs) {
    Map<String, List<String>> table = guard(() -> store.tables().units(tableKey));
    long now = guard(() -> store.clock().timeMillis());
    Map<String, Integer> costs = new LinkedHashMap<>();
    for (TaskSpec s : specs) {
      if (!s.deleted()) {
        costs.put(s.name(), s.cost());
      }
    }
    return new PoolState(now, members, table, costs, store.safety().clockMargin().toMillis());
  }

  private TaskSpecs specs(String pool) {
    if (pool == null || pool.isEmpty()) {
      throw TaskServiceException.aboutPool(TaskServiceException.ErrorKind.BAD_INPUT, "must be a non-empty name");
    }
    pools.checkKnown(pool);
    return specsOf(store, pool);
  }

  /** The specs role of {@code pool}; a name the store refuses is bad input about the pool. */
  static TaskSpecs specsOf(Store store, String pool) {
    try {
      return store.taskSpecs(pool);
    } catch (IllegalArgumentException e) {
      throw TaskServiceException.aboutPool(TaskServiceException.ErrorKind.BAD_INPUT, e.getMessage());
    }
  }

  private static void checkName(String name) {
    try {
      TaskLimits.checkName(name);
    } catch (IllegalArgumentException e) {
      throw TaskServiceException.badRequest("name: " + e.getMessage());
    }
  }

  private static void checkCost(int cost) {
    try {
      TaskLimits.checkCost(cost);
    } catch (IllegalArgumentException e) {
      throw TaskServiceException.badRequest("cost: " + e.getMessage());
    }
  }

  private static TaskServiceException noTask(String pool, String name) {
    return TaskServiceException.notFound("name: no task '" + name + "' in pool '" + pool + "'");
  }

  /** Runs a store call; an unreachable store is a 503, a refusal of the store (bad input) a 400. */
  static <T> T guard(Supplier<T> call) {
    try {
      return call.get();
    } catch (StoreUnavailableException e) {
      throw new TaskServiceException(TaskServiceException.ErrorKind.UNAVAILABLE, "store unavailable: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw TaskServiceException.badRequest(e.getMessage());
    }
  }
}
