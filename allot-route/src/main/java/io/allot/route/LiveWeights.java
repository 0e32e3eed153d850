package io.allot.route;

import io.allot.store.RouteWeights;
import io.allot.store.Store;
import java.util.Map;

/**
 * Live canary weights of a pool (version to weight), set without a redeploy: the routing side of the store role
 * {@link RouteWeights} ({@code store.routeWeights(pool)}). A set replaces every earlier weight (empty clears them)
 * and is announced on {@link io.allot.store.Topic#routeWeights(String)}, which every {@code allot://<pool>} resolver
 * watches; the resolver passes the weights to the policies as {@link AllotRouting#LIVE_WEIGHTS}, and live weights,
 * when set, override the weights of {@code allot_canary}'s service config.
 */
public final class LiveWeights {
  private LiveWeights() {}

  /** The largest weight accepted ({@link RouteWeights#MAX_WEIGHT}). */
  public static final int MAX_WEIGHT = RouteWeights.MAX_WEIGHT;

  /**
   * Sets the live weights of {@code pool} (replacing all earlier ones; empty clears them) and returns the new
   * revision.
   *
   * @throws IllegalArgumentException naming a bad pool, version or weight
   */
  public static long set(Store store, String pool, Map<String, Integer> weights) {
    return store.routeWeights(pool).set(weights);
  }

  /** The live weights of {@code pool}, versions in order; empty if none are set. */
  public static Map<String, Integer> read(Store store, String pool) {
    return store.routeWeights(pool).read();
  }
}
