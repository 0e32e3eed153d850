package io.allot.store.redis;

import io.allot.store.RouteWeights;
import io.allot.store.Topic;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RouteWeights} of one pool on Redis: the hash {@link RedisKeys#routeWeights} (version -> weight) and the
 * counter {@link RedisKeys#routeWeightsRevision}, both in the pool's slot. {@link #set} is one script ({@link #SET},
 * kept here with the role: it is the role's only script) that deletes the hash, writes the new fields, increments
 * the revision and PUBLISHes it, atomically; it runs with EVAL (a set is an operator's action, rare enough not to
 * need the script cache).
 *
 * <p><b>Earlier releases</b> kept the weights as the table {@code allot-route:<pool>} (a hash version -> weight, in
 * its own slot). While the pool's revision counter does not exist (its weights were never set through this role),
 * {@link #read} reads that hash instead, so weights set before an upgrade stay in force until the first
 * {@link #set}; from then on the old hash is no longer read (it is left in place, and may be deleted by hand).
 */
final class RedisRouteWeights extends PoolScoped implements RouteWeights {
  private static final Logger log = LoggerFactory.getLogger(RedisRouteWeights.class);

  /** KEYS the weights hash, the revision counter (routes/set_weights.lua). */
  static final Script SET = Script.load("routes/set_weights.lua");

  /** The table key under which releases before the role kept a pool's weights. */
  static String legacyKey(String pool) {
    return "allot-route:" + pool;
  }

  RedisRouteWeights(RedisConnection redis, String pool) {
    super(redis, pool);
  }

  @Override
  public long set(Map<String, Integer> weights) {
    SortedMap<String, Integer> checked = RouteWeights.check(weights);
    String[] keys = redis.sameSlot("set the route weights of pool '" + pool + "'", pool,
        RedisKeys.routeWeights(pool), RedisKeys.routeWeightsRevision(pool));
    List<String> args = new ArrayList<>(1 + 2 * checked.size());
    args.add(Topic.routeWeights(pool).channel());
    checked.forEach((version, weight) -> {
      args.add(version);
      args.add(Integer.toString(weight));
    });
    Long revision = redis.call("set route weights of " + pool,
        r -> r.eval(SET.text(), ScriptOutputType.INTEGER, keys, args.toArray(new String[0])));
    return revision;
  }

  @Override
  public long revision() {
    String key = RedisKeys.routeWeightsRevision(pool);
    String v = redis.call("GET route weights revision " + key, r -> r.get(key));
    return v == null ? 0 : Long.parseLong(v);
  }

  @Override
  public SortedMap<String, Integer> read() {
    String key = RedisKeys.routeWeights(pool);
    Map<String, String> raw = redis.call("HGETALL route weights " + key, r -> r.hgetall(key));
    if (raw.isEmpty()) {
      String revisionKey = RedisKeys.routeWeightsRevision(pool);
      if (redis.call("EXISTS " + revisionKey, r -> r.exists(revisionKey)) == 0) {
        String legacy = legacyKey(pool);
        return parse(legacy, redis.call("HGETALL route weights " + legacy, r -> r.hgetall(legacy)));
      }
    }
    return parse(key, raw);
  }

  /** The weights of a hash's fields; a field that is not a weight in 0..{@value #MAX_WEIGHT} is logged and skipped. */
  private static SortedMap<String, Integer> parse(String key, Map<String, String> fields) {
    TreeMap<String, Integer> out = new TreeMap<>();
    fields.forEach((version, value) -> {
      try {
        int n = Integer.parseInt(value.trim());
        if (n >= 0 && n <= MAX_WEIGHT && !version.isEmpty()) {
          out.put(version, n);
          return;
        }
      } catch (NumberFormatException e) {
        // logged below
      }
      log.warn("ignoring route weight '{}' of version '{}' in {}: not a weight in 0..{}", value, version, key,
          MAX_WEIGHT);
    });
    return Collections.unmodifiableSortedMap(out);
  }
}
