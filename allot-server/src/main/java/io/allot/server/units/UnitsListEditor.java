package io.allot.server.units;

import io.allot.store.Store;
import io.allot.store.tasks.TaskSpecs;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The units list (the server's {@code -workunits-namespace}) managed on any store through its {@code SeedKeys} role,
 * the same for {@code allot units add|remove|list} and the REST routes {@code /api/v1/pools/{pool}/units}: each add
 * and remove is one atomic store operation per unit, and every unit named is checked ({@link #check}) before
 * anything is written. A pool with long-running task specs takes its units from them, not from the list, so adding
 * for such a pool is refused ({@link PoolHasTasksException}). Thread-safe (it holds no state but the store).
 */
public final class UnitsListEditor {
  /** The longest unit name written. */
  public static final int MAX_UNIT_CHARS = 200;

  private final Store store;
  private final String key;

  /**
   * @param key the units list's key (the server's {@code -workunits-namespace})
   * @throws IllegalArgumentException if the key is empty
   */
  public UnitsListEditor(Store store, String key) {
    this.store = Objects.requireNonNull(store, "store");
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("units list: empty key");
    }
    this.key = key;
  }

  /** The units list's key. */
  public String key() {
    return key;
  }

  /** What an add or a remove did: the units changed, and those left as they were (already listed, not listed). */
  public record Edit(List<String> changed, List<String> unchanged) {
    public Edit {
      changed = List.copyOf(changed);
      unchanged = List.copyOf(unchanged);
    }
  }

  /** An add refused because the pool takes its units from its long-running task specs; nothing written. */
  public static final class PoolHasTasksException extends RuntimeException {
    PoolHasTasksException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Checks units to write: at least one; each non-empty, at most {@value #MAX_UNIT_CHARS} characters, without ','
   * (the distribution hash separates units with it) or control characters, and named once.
   *
   * @return {@code units}
   * @throws IllegalArgumentException naming the first bad unit, ending "nothing written"
   */
  public static List<String> check(List<String> units) {
    if (units == null || units.isEmpty()) {
      throw new IllegalArgumentException("units: name at least one unit");
    }
    Set<String> seen = new HashSet<>();
    for (String u : units) {
      if (u == null || u.isBlank()) {
        throw new IllegalArgumentException("unit '" + (u == null ? "" : u) + "': empty name; nothing written");
      }
      if (u.length() > MAX_UNIT_CHARS) {
        throw new IllegalArgumentException("unit '" + u.substring(0, 20) + "...': " + u.length()
            + " characters; at most " + MAX_UNIT_CHARS + "; nothing written");
      }
      if (u.indexOf(',') >= 0) {
        throw new IllegalArgumentException("unit '" + u + "': contains ',', which the distribution hash cannot "
            + "store; nothing written");
      }
      if (u.chars().anyMatch(Character::isISOControl)) {
        throw new IllegalArgumentException("unit '" + u.replaceAll("\\p{Cntrl}", "?")
            + "': contains a control character; nothing written");
      }
      if (!seen.add(u)) {
        throw new IllegalArgumentException("unit '" + u + "': named twice; nothing written");
      }
    }
    return units;
  }

  /** The units of the list, in list order. */
  public List<String> list() {
    return store.seedKeys().list(key);
  }

  /** The number of live and deleted task specs of {@code pool}: while it has any, they are its units. */
  public int taskCount(String pool) {
    TaskSpecs specs;
    try {
      specs = store.taskSpecs(pool);
    } catch (UnsupportedOperationException e) {
      return 0; // a store without task specs: every pool takes the units list
    }
    return specs.version() == 0 ? 0 : specs.list().size();
  }

  /**
   * Adds each unit not listed yet at the head (as the original's LPUSH), so the list starts with them in the order
   * given; one listed already is left as it is.
   *
   * @throws IllegalArgumentException naming a bad unit ({@link #check}); nothing written
   * @throws PoolHasTasksException if {@code pool} takes its units from its task specs; nothing written
   */
  public Edit add(String pool, List<String> units) {
    check(units);
    int tasks = taskCount(pool);
    if (tasks > 0) {
      throw new PoolHasTasksException("pool '" + pool + "' takes its units from its " + tasks + " long-running "
          + "task(s), not from the units list '" + key + "': create tasks instead, or use a pool without tasks; "
          + "nothing written");
    }
    List<String> added = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    for (int i = units.size() - 1; i >= 0; i--) {
      String u = units.get(i);
      (store.seedKeys().addToList(key, u) ? added : kept).add(0, u);
    }
    return new Edit(added, kept);
  }

  /**
   * Removes the units; one not in the list is left out (reported in {@link Edit#unchanged()}).
   *
   * @throws IllegalArgumentException naming a bad unit ({@link #check}); nothing written
   */
  public Edit remove(List<String> units) {
    check(units);
    List<String> removed = new ArrayList<>();
    List<String> absent = new ArrayList<>();
    for (String u : units) {
      (store.seedKeys().removeFromList(key, u) ? removed : absent).add(u);
    }
    return new Edit(removed, absent);
  }
}
