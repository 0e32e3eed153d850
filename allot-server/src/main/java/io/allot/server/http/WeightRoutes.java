package io.allot.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.allot.store.RouteWeights;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskService;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The live routing weights of a pool ({@link RouteWeights}, what {@code allot route weights} sets and every
 * {@code allot://pool} resolver reads): {@code GET /pools/{pool}/weights} and {@code PUT /pools/{pool}/weights}
 * {@code {"weights": {"version": weight, ...}}}, both answering {@code {"pool", "weights", "version"}} (the revision
 * of the last set, 0 if never set). A PUT replaces the weights whole ({@code {}} clears them); a bad version or
 * weight is a 400 naming it, nothing written. Immutable.
 */
final class WeightRoutes implements RouteGroup {
  private final Store store;
  private final TaskService tasks;

  WeightRoutes(Store store, TaskService tasks) {
    this.store = store;
    this.tasks = tasks;
  }

  @Override
  public ApiHandler.Reply route(ApiHandler.Call call, List<String> seg, ApiHandler api) {
    if (seg.size() != 3 || !seg.get(0).equals("pools") || !seg.get(2).equals("weights")) {
      return null;
    }
    ApiHandler.allow(call.method(), "GET", "PUT");
    String pool = seg.get(1);
    try {
      if (call.method().equals("GET")) {
        tasks.checkPool(pool);
        RouteWeights w = store.routeWeights(pool);
        long version = w.revision();
        return ApiHandler.Reply.json(200, view(pool, w.read(), version));
      }
      api.authorize(call);
      tasks.checkPool(pool);
      SortedMap<String, Integer> weights = weights(ApiHandler.body(call, Set.of("weights")));
      long version = store.routeWeights(pool).set(weights);
      return ApiHandler.Reply.json(200, view(pool, weights, version));
    } catch (StoreUnavailableException e) {
      throw RouteGroup.unavailable(e);
    }
  }

  private static SortedMap<String, Integer> weights(ObjectNode body) {
    JsonNode w = body.get("weights");
    if (w == null || !w.isObject()) {
      throw ApiHandler.badInput("weights: must be an object of version to weight but was " + TaskJson.kind(w));
    }
    TreeMap<String, Integer> out = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = w.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (!v.isIntegralNumber() || !v.canConvertToInt()) {
        throw ApiHandler.badInput("weights: weight of version '" + e.getKey() + "' must be an integer 0.."
            + RouteWeights.MAX_WEIGHT + " but was " + v + "; nothing written");
      }
      out.put(e.getKey(), v.intValue());
    }
    try {
      return RouteWeights.check(out);
    } catch (IllegalArgumentException e) {
      throw ApiHandler.badInput("weights: " + e.getMessage().replaceFirst("^route weights: ", "")
          + "; nothing written");
    }
  }

  private static ObjectNode view(String pool, Map<String, Integer> weights, long version) {
    ObjectNode o = TaskJson.MAPPER.createObjectNode();
    o.put("pool", pool);
    ObjectNode w = o.putObject("weights");
    weights.forEach(w::put);
    o.put("version", version);
    return o;
  }
}
