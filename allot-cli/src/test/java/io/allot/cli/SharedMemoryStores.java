package io.allot.cli;

import io.allot.store.Leadership;
import io.allot.store.Membership;
import io.allot.store.Notifications;
import io.allot.store.Ownership;
import io.allot.store.Safety;
import io.allot.store.SeedKeys;
import io.allot.store.Store;
import io.allot.store.StoreClock;
import io.allot.store.StoreProvider;
import io.allot.store.Tables;
import io.allot.store.jobs.JobQueue;
import io.allot.store.memory.MemoryStore;
import io.allot.store.tasks.TaskSpecs;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * For tests: {@code shared-memory:NAME} opens a view of one {@link MemoryStore} per name that lives as long as this
 * JVM, so several in-process runs of {@code allot} see the same records (the plain {@code memory:} store is new on
 * every open). Closing a view leaves the store open.
 */
public final class SharedMemoryStores extends StoreProvider {
  private static final Map<String, MemoryStore> STORES = new ConcurrentHashMap<>();

  /** The store named {@code name} (made on first use). */
  static MemoryStore get(String name) {
    return STORES.computeIfAbsent(name, n -> new MemoryStore());
  }

  @Override
  public Set<String> schemes() {
    return Set.of("shared-memory");
  }

  @Override
  public Store open(String uri) {
    return new View(get(uri.substring(uri.indexOf(':') + 1)));
  }

  @Override
  public String usage() {
    return "shared-memory:NAME (tests)";
  }

  /** Delegates everything but close. */
  private record View(Store d) implements Store {
    @Override
    public String describe() {
      return "shared-" + d.describe();
    }

    @Override
    public Safety safety() {
      return d.safety();
    }

    @Override
    public StoreClock clock() {
      return d.clock();
    }

    @Override
    public Leadership leadership() {
      return d.leadership();
    }

    @Override
    public Membership membership(String pool) {
      return d.membership(pool);
    }

    @Override
    public Ownership ownership(String pool) {
      return d.ownership(pool);
    }

    @Override
    public Tables tables() {
      return d.tables();
    }

    @Override
    public Notifications notifications() {
      return d.notifications();
    }

    @Override
    public SeedKeys seedKeys() {
      return d.seedKeys();
    }

    @Override
    public JobQueue jobQueue(String name) {
      return d.jobQueue(name);
    }

    @Override
    public io.allot.store.jobs.JobQueues jobQueues() {
      return d.jobQueues();
    }

    @Override
    public TaskSpecs taskSpecs(String pool) {
      return d.taskSpecs(pool);
    }

    @Override
    public io.allot.store.RouteWeights routeWeights(String pool) {
      return d.routeWeights(pool);
    }

    @Override
    public io.allot.store.events.Events events() {
      return d.events();
    }

    @Override
    public void close() {
      // the store outlives its views
    }
  }
}
