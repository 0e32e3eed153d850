package io.allot.store.memory;

import io.allot.store.SeedKeys;
import io.allot.store.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * {@link SeedKeys} of the {@link MemoryStore}: the lists and hashes of {@link MemoryState#data}, under its lock.
 * Immutable (the state is the store's).
 */
final class MemorySeedKeys implements SeedKeys {
  private final MemoryState s;

  MemorySeedKeys(MemoryState state) {
    this.s = state;
  }

  @Override
  public List<String> list(String key) {
    Objects.requireNonNull(key, "key");
    return s.locked(() -> s.listCopy(key));
  }

  @Override
  public boolean addToList(String key, String value) {
    return withList(key, value, list -> {
      if (list != null && list.contains(value)) {
        return false;
      }
      if (list == null) {
        list = new ArrayList<>();
        s.data.put(key, list);
      }
      list.add(0, value);
      s.announce(Topic.key(key), "lpush");
      return true;
    });
  }

  @Override
  public boolean removeFromList(String key, String value) {
    return withList(key, value, list -> {
      if (list == null) {
        return false;
      }
      boolean removed = list.removeIf(value::equals);
      if (list.isEmpty()) {
        s.data.remove(key);
      }
      if (removed) {
        s.announce(Topic.key(key), "lrem");
      }
      return removed;
    });
  }

  @Override
  public void replaceList(String key, List<String> values) {
    Objects.requireNonNull(key, "key");
    List<String> copy = new ArrayList<>(values.size());
    for (String v : values) {
      copy.add(Objects.requireNonNull(v, "list values must not be null"));
    }
    s.lockedRun(() -> {
      if (copy.isEmpty()) {
        s.data.remove(key);
      } else {
        s.data.put(key, copy);
      }
      s.announce(Topic.key(key), "replace");
    });
  }

  @Override
  public String hashField(String key, String field) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(field, "field");
    return s.locked(() -> s.hashField(key, field));
  }

  @Override
  public Map<String, String> hash(String key) {
    Objects.requireNonNull(key, "key");
    return s.locked(() -> s.hashCopy(key));
  }

  /** Checks key and value, then applies {@code change} to the key's list (null when there is none) under the lock. */
  private boolean withList(String key, String value, Predicate<List<String>> change) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return s.locked(() -> change.test(s.listOrNull(key)));
  }
}
