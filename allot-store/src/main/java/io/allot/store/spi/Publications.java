package io.allot.store.spi;

import io.allot.store.Lease;
import io.allot.store.Tables;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * For store implementations: this client's last successful {@link Tables#publish} of each (table key, pool), so that
 * the next one under the same lease can send only the difference. A publication in flight has taken its entry out
 * ({@link #take}), and one that failed puts none back, so the next is full. Thread-safe: a concurrent map of
 * immutable values.
 */
public final class Publications {
  private final ConcurrentHashMap<String, Publication> last = new ConcurrentHashMap<>();

  /**
   * A publication this client made: under which lease, the epoch it got, and the fields it wrote (the copy
   * {@link PublishArgs#check} made, which nobody changes).
   */
  public record Publication(Lease lease, long epoch, Map<String, String> fields) {
    /** The fields of this publication that {@code now} no longer has, in no particular order. */
    public List<String> dropped(Map<String, String> now) {
      List<String> dropped = new ArrayList<>();
      fields.keySet().forEach(f -> {
        if (!now.containsKey(f)) {
          dropped.add(f);
        }
      });
      return dropped;
    }

    /** The fields of {@code now} that are new or hold another value than in this publication, in their order. */
    public Map<String, String> changed(Map<String, String> now) {
      Map<String, String> changed = new LinkedHashMap<>();
      now.forEach((f, v) -> {
        String old = fields.get(f);
        if (old != v && !v.equals(old)) { // the same instance first: callers pass unchanged values along
          changed.put(f, v);
        }
      });
      return changed;
    }
  }

  /** Takes out the last publication of {@code pool} into {@code tableKey} if it was made under {@code lease}; else null. */
  public Publication take(Lease lease, String tableKey, String pool) {
    Publication p = last.remove(key(tableKey, pool));
    return p != null && p.lease().equals(lease) ? p : null;
  }

  /** Records a successful publication of {@code fields} (as checked by {@link PublishArgs#check}). */
  public void put(Lease lease, String tableKey, String pool, long epoch, Map<String, String> fields) {
    last.put(key(tableKey, pool), new Publication(lease, epoch, fields));
  }

  private static String key(String tableKey, String pool) {
    return tableKey + "\u0000" + pool;
  }
}
