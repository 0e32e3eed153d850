package io.allot.store.memory;

import io.allot.store.RouteWeights;
import io.allot.store.Topic;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@link RouteWeights} of one pool of the {@link MemoryStore}: the pool's record in {@link MemoryState#routeWeights},
 * replaced whole under the state's lock and announced under it. A cheap immutable view.
 */
final class MemoryRouteWeights extends MemoryPoolView implements RouteWeights {
  MemoryRouteWeights(MemoryState state, String pool) {
    super(state, pool);
  }

  @Override
  public long set(Map<String, Integer> weights) {
    SortedMap<String, Integer> checked = RouteWeights.check(weights);
    return s.locked(() -> {
      MemoryState.Weights old = s.routeWeights.get(pool);
      long revision = old == null ? 1 : old.revision() + 1;
      s.routeWeights.put(pool, new MemoryState.Weights(revision, checked));
      s.announce(Topic.routeWeights(pool), Long.toString(revision));
      return revision;
    });
  }

  @Override
  public long revision() {
    return s.locked(() -> {
      MemoryState.Weights w = s.routeWeights.get(pool);
      return w == null ? 0L : w.revision();
    });
  }

  @Override
  public SortedMap<String, Integer> read() {
    return s.locked(() -> {
      MemoryState.Weights w = s.routeWeights.get(pool);
      return w == null ? Collections.unmodifiableSortedMap(new TreeMap<>()) : w.weights();
    });
  }
}
