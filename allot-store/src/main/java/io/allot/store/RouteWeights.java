package io.allot.store;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The live routing weights of one pool: canary version to weight, set by an operator ({@code allot route weights})
 * without a redeploy and read by every {@code allot://<pool>} resolver, whose policies let them override the
 * weights of their service config. One record per pool, always replaced whole: no lease is needed to write it (two
 * operators setting it at once: the last one wins, whole), and no reader ever sees half of a change.
 *
 * <p>Each {@link #set} is announced on {@link Topic#routeWeights(String)} with the new revision as message.
 * Weights are integers 0..{@value #MAX_WEIGHT}; a version is any non-empty name.
 *
 * <p>Stores keep the weights a release before this role wrote as the table {@code allot-route:<pool>} (hash fields
 * version to weight): PostgreSQL copies them in schema migration 10; Redis reads that hash while the pool has never
 * been set through this role; the memory store has no earlier data.
 */
public interface RouteWeights {

  /** The largest weight accepted. */
  int MAX_WEIGHT = 1_000_000;

  /** The pool this view is scoped to. */
  String pool();

  /**
   * Atomically replaces the pool's weights with {@code weights} (empty: clears them) and announces the change.
   *
   * @return the new revision: larger than any before for this pool
   * @throws IllegalArgumentException naming a bad version or weight ({@link #check}); nothing changed
   */
  long set(Map<String, Integer> weights);

  /**
   * The revision of the pool's last {@link #set}: the value it returned; 0 if the weights were never set through this
   * role.
   */
  long revision();

  /** The pool's weights, versions in order; empty if none are set. Unmodifiable. */
  SortedMap<String, Integer> read();

  /**
   * Checks weights for {@link #set}: no null or empty version, every weight in 0..{@value #MAX_WEIGHT}.
   *
   * @return an unmodifiable copy, versions in order
   * @throws IllegalArgumentException naming the version and the weight
   */
  static SortedMap<String, Integer> check(Map<String, Integer> weights) {
    TreeMap<String, Integer> out = new TreeMap<>();
    weights.forEach((version, weight) -> {
      if (version == null || version.isEmpty()) {
        throw new IllegalArgumentException("route weights: version must not be empty");
      }
      if (weight == null || weight < 0 || weight > MAX_WEIGHT) {
        throw new IllegalArgumentException("route weights: weight of version '" + version + "' must be 0.."
            + MAX_WEIGHT + " but was " + weight);
      }
      out.put(version, weight);
    });
    return Collections.unmodifiableSortedMap(out);
  }
}
