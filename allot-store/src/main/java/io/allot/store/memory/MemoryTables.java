package io.allot.store.memory;

import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.store.spi.PublishArgs;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * {@link Tables} of the {@link MemoryStore}: a table is a hash of {@link MemoryState#data} (the seed layout); the
 * epochs, the fields each pool wrote last and the last writer of each field are this class's own records. Every
 * record is guarded by the state's lock, which a publication holds from the lease check to the announcement, so
 * epochs are announced in order.
 */
final class MemoryTables implements Tables {
  private record PoolKey(String tableKey, String pool) {}

  private final MemoryState s;
  // ---- guarded by s.lock
  /** Table key -> its epoch. */
  private final Map<String, Long> epochs = new HashMap<>();
  /** (tableKey, pool) -> the fields the pool wrote last time. */
  private final Map<PoolKey, Set<String>> poolFields = new HashMap<>();
  /** Table key -> field -> the pool that wrote it last. */
  private final Map<String, Map<String, String>> fieldOwners = new HashMap<>();
  // ---- end of guarded by s.lock

  MemoryTables(MemoryState state) {
    this.s = state;
  }

  /** Forgets every record (a restart without persistence); the caller holds the state's lock. */
  void clear() {
    epochs.clear();
    poolFields.clear();
    fieldOwners.clear();
  }

  @Override
  public long publish(Lease lease, String tableKey, String pool, Map<String, String> fields) {
    Map<String, String> copy = PublishArgs.check(lease, tableKey, pool, fields);
    return s.locked(() -> {
      if (!s.isCurrent(lease)) {
        MemoryState.Held held = s.liveLease(lease.name());
        throw new FencedException(lease, held == null ? Optional.empty()
            : Optional.of(new Lease(lease.name(), held.holder(), held.token())));
      }
      Map<String, String> hash = s.hashOrNull(tableKey);
      if (hash == null) {
        hash = new LinkedHashMap<>();
      }
      Map<String, String> owner = fieldOwners.computeIfAbsent(tableKey, k -> new HashMap<>());
      PoolKey gk = new PoolKey(tableKey, pool);
      for (String f : poolFields.getOrDefault(gk, Set.of())) {
        if (!copy.containsKey(f) && pool.equals(owner.get(f))) {
          hash.remove(f);
          owner.remove(f);
        }
      }
      hash.putAll(copy);
      copy.keySet().forEach(f -> owner.put(f, pool));
      if (copy.isEmpty()) {
        poolFields.remove(gk);
      } else {
        poolFields.put(gk, new LinkedHashSet<>(copy.keySet()));
      }
      if (owner.isEmpty()) {
        fieldOwners.remove(tableKey);
      }
      if (hash.isEmpty()) {
        s.data.remove(tableKey);
      } else {
        s.data.put(tableKey, hash);
      }
      long epoch = epochs.merge(tableKey, 1L, Long::sum);
      s.announce(Topic.table(tableKey), Long.toString(epoch)); // under the lock: announced in epoch order
      return epoch;
    });
  }

  @Override
  public long epoch(String tableKey) {
    Objects.requireNonNull(tableKey, "tableKey");
    return s.locked(() -> epochs.getOrDefault(tableKey, 0L));
  }

  @Override
  public Map<String, String> read(String tableKey) {
    Objects.requireNonNull(tableKey, "key");
    return s.locked(() -> s.hashCopy(tableKey));
  }

  @Override
  public Optional<String> read(String tableKey, String member) {
    Objects.requireNonNull(tableKey, "key");
    Objects.requireNonNull(member, "field");
    return Optional.ofNullable(s.locked(() -> s.hashField(tableKey, member)));
  }
}
