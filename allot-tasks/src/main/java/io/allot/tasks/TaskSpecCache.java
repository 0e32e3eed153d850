package io.allot.tasks;

import io.allot.store.Store;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.allot.store.tasks.TaskSpec;
import io.allot.store.tasks.TaskSpecs;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's view of its pool's long-running task specs: kept up to date from the store's change announcements
 * ({@link Topic#taskSpecs(String)}) and a full re-read every {@code refresh} (the fallback for a lost announcement).
 * It answers a task's cost for the divider's capacity ({@link Divider.Builder#unitCost}) without a store call: a
 * task it does not know yet counts as too costly to claim, and is looked up in the background, so capacity is never
 * exceeded on a guess. Thread-safe; {@link #close()} stops its thread and subscription.
 */
public final class TaskSpecCache implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TaskSpecCache.class);
  /** Cost answered for a task not known yet: above any capacity, so it is not claimed before it is known. */
  static final int UNKNOWN_COST = Integer.MAX_VALUE;

  private final TaskSpecs specs;
  private final Map<String, TaskSpec> byName = new ConcurrentHashMap<>();
  /** Names being looked up in the background. */
  private final Map<String, Boolean> lookups = new ConcurrentHashMap<>();
  private final List<Consumer<TaskSpec>> listeners = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService thread;
  private final Subscription subscription;
  /** True once the pool is seen to have task specs (its units are then tasks); any thread. */
  private volatile boolean specPool;

  /** A cache of the specs of {@code pool}, re-read in full every {@code refresh}. */
  public TaskSpecCache(Store store, String pool, Duration refresh) {
    this.specs = store.taskSpecs(pool);
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "allot-task-specs-" + pool);
      t.setDaemon(true);
      return t;
    });
    Subscription sub;
    try {
      sub = store.notifications().subscribe(Topic.taskSpecs(pool), name -> {
        specPool = true;
        thread.execute(() -> reload(name));
      });
    } catch (RuntimeException e) {
      log.warn("pool={} task spec announcements unavailable ({}); re-reading every {} ms", pool, e.toString(),
          refresh.toMillis());
      sub = null;
    }
    this.subscription = sub;
    reloadAll(); // before the divider can ask for a cost
    long every = Math.max(1, refresh.toMillis());
    thread.scheduleWithFixedDelay(this::reloadAll, every, every, TimeUnit.MILLISECONDS);
  }

  /** Calls {@code listener} (on the cache's thread) with every spec that changed: its new state. */
  public void onChange(Consumer<TaskSpec> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * The cost of task {@code name}; {@link Integer#MAX_VALUE} (never claimable) while it is not known yet. In a pool
   * without task specs (its units come from the units list) every unit costs 1.
   */
  public int cost(String name) {
    TaskSpec s = byName.get(name);
    if (s == null) {
      if (!specPool) {
        return 1;
      }
      if (lookups.putIfAbsent(name, Boolean.TRUE) == null) {
        thread.execute(() -> {
          lookups.remove(name);
          reload(name);
        });
      }
      return UNKNOWN_COST;
    }
    return s.cost();
  }

  /** True once the pool is seen to have task specs. */
  public boolean specPool() {
    return specPool;
  }

  /** The spec of {@code name} as last seen, if any. */
  public Optional<TaskSpec> spec(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The spec of {@code name} read from the store now (and cached). */
  public Optional<TaskSpec> fresh(String name) {
    Optional<TaskSpec> s = specs.get(name);
    s.ifPresentOrElse(v -> put(v), () -> byName.remove(name));
    return s;
  }

  private void reload(String name) {
    try {
      Optional<TaskSpec> s = specs.get(name);
      if (s.isPresent()) {
        put(s.get());
      } else {
        byName.remove(name);
      }
    } catch (RuntimeException e) {
      log.debug("reading task spec {} failed: {}", name, e.toString());
    }
  }

  private void reloadAll() {
    try {
      Map<String, TaskSpec> now = new HashMap<>();
      for (TaskSpec s : specs.list()) {
        now.put(s.name(), s);
        put(s);
      }
      byName.keySet().retainAll(now.keySet());
      if (!now.isEmpty()) {
        specPool = true;
      }
    } catch (RuntimeException e) {
      log.debug("reading task specs failed: {}", e.toString());
    }
  }

  private void put(TaskSpec s) {
    TaskSpec old = byName.put(s.name(), s);
    if (!s.equals(old)) {
      for (Consumer<TaskSpec> l : listeners) {
        try {
          l.accept(s);
        } catch (RuntimeException e) {
          log.warn("task spec listener failed on {}: {}", s.name(), e.toString());
        }
      }
    }
  }

  /** The role the cache reads. */
  TaskSpecs specs() {
    return specs;
  }

  @Override
  public void close() {
    if (subscription != null) {
      subscription.close();
    }
    thread.shutdownNow();
  }
}
