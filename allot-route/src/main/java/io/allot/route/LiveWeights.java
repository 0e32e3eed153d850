package io.allot.route;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.Tables;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Live canary weights of a pool (version to weight), set without a redeploy and without a store role of their own:
 * they are a tiny assignment table, published with the {@link Tables} role under table key {@code allot-route:<pool>}
 * by the publisher {@value #PUBLISHER} (fields: version to weight), under a lease from {@link io.allot.store.Leadership} named
 * {@link Tables#leaseName(String, String) leaseName(key, "weights")}. Publishing announces the change on that table's
 * topic, which every {@code allot://<pool>} resolver watches and passes to the policies as
 * {@link AllotRouting#LIVE_WEIGHTS}; live weights, when set, override the weights of {@code allot_canary}'s service
 * config. Setting an empty map clears them.
 */
public final class LiveWeights {
  private LiveWeights() {}

  /** The name under which the weights are published (in the place of a pool). */
  public static final String PUBLISHER = "weights";
  /** The largest weight accepted. */
  public static final int MAX_WEIGHT = 1_000_000;

  private static final Duration LEASE_TTL = Duration.ofSeconds(10);

  /** The table key holding the live weights of {@code pool}: {@code allot-route:<pool>}. */
  public static String tableKey(String pool) {
    return "allot-route:" + Store.checkPool(pool);
  }

  /**
   * Sets the live weights of {@code pool} (replacing all earlier ones; empty clears them) and returns the new epoch.
   * Waits up to about 2 s for the publication lease if another writer holds it.
   *
   * @throws IllegalArgumentException naming a bad version or weight
   * @throws IllegalStateException if the lease stays held by another writer
   */
  public static long set(Store store, String pool, Map<String, Integer> weights) {
    Map<String, String> fields = new TreeMap<>();
    weights.forEach((v, w) -> {
      check(v, w);
      fields.put(v, Integer.toString(w));
    });
    String key = tableKey(pool);
    String name = Tables.leaseName(key, PUBLISHER);
    String holder = "allot-route@" + ProcessHandle.current().pid();
    for (int attempt = 0; attempt < 40; attempt++) {
      Optional<Lease> lease = store.leadership().tryAcquire(name, holder, LEASE_TTL);
      if (lease.isPresent()) {
        try {
          return store.tables().publish(lease.get(), key, PUBLISHER, fields);
        } finally {
          store.leadership().release(lease.get());
        }
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for lease '" + name + "'", e);
      }
    }
    throw new IllegalStateException("lease '" + name + "' is held by "
        + store.leadership().current(name).map(Lease::holder).orElse("someone") + "; live weights not set");
  }

  /** The live weights of {@code pool}; empty if none are set. Fields that are not weights are skipped. */
  public static Map<String, Integer> read(Store store, String pool) {
    return parse(store.tables().read(tableKey(pool)));
  }

  /** The weights in a weights table's fields; a field that is not a weight in 0..{@value #MAX_WEIGHT} is skipped. */
  static Map<String, Integer> parse(Map<String, String> fields) {
    Map<String, Integer> out = new TreeMap<>();
    fields.forEach((v, w) -> {
      try {
        int n = Integer.parseInt(w.trim());
        if (n >= 0 && n <= MAX_WEIGHT) {
          out.put(v, n);
        }
      } catch (NumberFormatException skipped) {
        // not ours: a weights table only ever holds integers
      }
    });
    return Collections.unmodifiableMap(out);
  }

  /**
   * Checks one weight.
   *
   * @throws IllegalArgumentException naming the version and the weight
   */
  static void check(String version, Integer weight) {
    if (version == null || version.isEmpty()) {
      throw new IllegalArgumentException("canary weights: version must not be empty");
    }
    if (weight == null || weight < 0 || weight > MAX_WEIGHT) {
      throw new IllegalArgumentException("canary weights: weight of version '" + version + "' must be 0.."
          + MAX_WEIGHT + " but was " + weight);
    }
  }
}
