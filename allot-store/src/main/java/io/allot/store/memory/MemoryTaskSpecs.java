package io.allot.store.memory;

import io.allot.store.Store;
import io.allot.store.tasks.TaskCreated;
import io.allot.store.tasks.TaskFault;
import io.allot.store.tasks.TaskLimits;
import io.allot.store.tasks.TaskRun;
import io.allot.store.tasks.TaskSpec;
import io.allot.store.tasks.TaskSpecs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * {@link TaskSpecs} in memory, for {@link MemoryStore}: every pool's specs under one lock. Changes are announced
 * through a callback (the store's notifications), after the change, outside nothing: the callback runs under the
 * lock, as the memory store's announcements do.
 */
public final class MemoryTaskSpecs {
  private final Object lock = new Object();
  /** Pool -> name -> spec. Guarded by {@link #lock}. */
  private final Map<String, TreeMap<String, TaskSpec>> pools = new HashMap<>();
  /** Pool -> version. Guarded by {@link #lock}. */
  private final Map<String, Long> versions = new HashMap<>();
  private final LongSupplier nowMillis;
  private final BiConsumer<String, String> announce;

  /**
   * @param nowMillis the store's clock, epoch milliseconds
   * @param announce  called with (pool, task name) after every change
   */
  public MemoryTaskSpecs(LongSupplier nowMillis, BiConsumer<String, String> announce) {
    this.nowMillis = Objects.requireNonNull(nowMillis, "nowMillis");
    this.announce = Objects.requireNonNull(announce, "announce");
  }

  /** The view of {@code pool}. */
  public TaskSpecs pool(String pool) {
    return new View(Store.checkPool(pool));
  }

  /** Forgets everything (a store restart without persistence). */
  public void clear() {
    synchronized (lock) {
      pools.clear();
      versions.clear();
    }
  }

  private final class View implements TaskSpecs {
    private final String pool;

    View(String pool) {
      this.pool = pool;
    }

    @Override
    public String pool() {
      return pool;
    }

    private TreeMap<String, TaskSpec> specs() {
      return pools.computeIfAbsent(pool, p -> new TreeMap<>());
    }

    private void changed(String name) {
      versions.merge(pool, 1L, Long::sum);
      announce.accept(pool, name);
    }

    /** Stores {@code spec} in the place of its name's and announces the change; returns it. Under {@code lock}. */
    private TaskSpec put(TaskSpec spec) {
      specs().put(spec.name(), spec);
      changed(spec.name());
      return spec;
    }

    @Override
    public TaskCreated create(String name, String args, int cost) {
      TaskLimits.checkName(name);
      TaskLimits.checkArgs(args);
      TaskLimits.checkCost(cost);
      synchronized (lock) {
        TaskSpec old = specs().get(name);
        if (old != null && !old.deleted()) {
          boolean same = old.args().equals(args) && old.cost() == cost;
          return new TaskCreated(same ? TaskCreated.Outcome.EXISTS : TaskCreated.Outcome.CONFLICT, old);
        }
        long now = nowMillis.getAsLong();
        return new TaskCreated(TaskCreated.Outcome.CREATED,
            put(new TaskSpec(name, args, cost, old == null ? 1 : old.revision() + 1, now, now, 0, null, null)));
      }
    }

    @Override
    public Optional<TaskSpec> update(String name, String args, int cost) {
      TaskLimits.checkName(name);
      TaskLimits.checkArgs(args);
      TaskLimits.checkCost(cost);
      synchronized (lock) {
        TaskSpec old = specs().get(name);
        if (old == null || old.deleted()) {
          return Optional.empty();
        }
        if (old.args().equals(args) && old.cost() == cost) {
          return Optional.of(old);
        }
        return Optional.of(put(new TaskSpec(name, args, cost, old.revision() + 1, old.createdMillis(),
            nowMillis.getAsLong(), 0, old.run(), old.fault())));
      }
    }

    @Override
    public Optional<TaskSpec> updateArgs(String name, String args) {
      TaskLimits.checkName(name);
      synchronized (lock) {
        TaskSpec old = specs().get(name);
        return old == null || old.deleted() ? Optional.empty() : update(name, args, old.cost());
      }
    }

    @Override
    public Optional<TaskSpec> delete(String name) {
      TaskLimits.checkName(name);
      synchronized (lock) {
        TaskSpec old = specs().get(name);
        if (old == null || old.deleted()) {
          return Optional.ofNullable(old);
        }
        long now = nowMillis.getAsLong();
        return Optional.of(put(new TaskSpec(name, old.args(), old.cost(), old.revision(), old.createdMillis(), now, now,
            old.run(), old.fault())));
      }
    }

    @Override
    public Optional<TaskSpec> get(String name) {
      TaskLimits.checkName(name);
      synchronized (lock) {
        return Optional.ofNullable(specs().get(name));
      }
    }

    @Override
    public List<TaskSpec> list() {
      synchronized (lock) {
        return List.copyOf(new ArrayList<>(specs().values()));
      }
    }

    @Override
    public long version() {
      synchronized (lock) {
        return versions.getOrDefault(pool, 0L);
      }
    }

    @Override
    public boolean started(String name, TaskRun run) {
      TaskLimits.checkName(name);
      Objects.requireNonNull(run, "run");
      synchronized (lock) {
        TaskSpec old = specs().get(name);
        if (old == null || (old.run() != null && old.run().token() > run.token())) {
          return false;
        }
        TaskRun stamped = new TaskRun(run.member(), run.token(), run.revision(), nowMillis.getAsLong());
        TaskFault fault = old.run() != null && old.run().token() == run.token() ? old.fault() : null;
        specs().put(name, new TaskSpec(name, old.args(), old.cost(), old.revision(), old.createdMillis(),
            old.updatedMillis(), old.deletedMillis(), stamped, fault));
        return true; // a report: no version bump, no announcement
      }
    }

    @Override
    public boolean fault(String name, long token, TaskFault fault) {
      TaskLimits.checkName(name);
      synchronized (lock) {
        TaskSpec old = specs().get(name);
        if (old == null || old.run() == null || old.run().token() != token) {
          return false;
        }
        specs().put(name, new TaskSpec(name, old.args(), old.cost(), old.revision(), old.createdMillis(),
            old.updatedMillis(), old.deletedMillis(), old.run(), fault));
        return true; // a report: no version bump, no announcement
      }
    }

    @Override
    public boolean purge(String name, long revision) {
      TaskLimits.checkName(name);
      synchronized (lock) {
        TaskSpec old = specs().get(name);
        if (old == null || !old.deleted() || old.revision() != revision) {
          return false;
        }
        specs().remove(name);
        changed(name);
        return true;
      }
    }
  }
}
