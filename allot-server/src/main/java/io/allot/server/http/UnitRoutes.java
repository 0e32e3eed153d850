package io.allot.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.allot.server.units.UnitsListEditor;
import io.allot.store.StoreUnavailableException;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskService;
import io.allot.tasks.service.TaskServiceException;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The units list through REST, with the code of {@code allot units} ({@link UnitsListEditor}):
 * {@code GET /pools/{pool}/units} {@code {"pool", "units": [...]}} (the list in order); {@code POST
 * /pools/{pool}/units} {@code {"units": ["u", ...]}} adds the units not listed yet, {@code {"added": N}} (409 for a
 * pool with long-running tasks: they are its units); {@code DELETE /pools/{pool}/units/{unit}} {@code {"removed": 1}}
 * (404 for a unit not listed). Every unit is checked before anything is written (400 naming it). Immutable.
 */
final class UnitRoutes implements RouteGroup {
  private final TaskService tasks;
  private final Function<String, UnitsListEditor> editors; // pool -> the editor of its units list

  UnitRoutes(TaskService tasks, Function<String, UnitsListEditor> editors) {
    this.tasks = tasks;
    this.editors = editors;
  }

  @Override
  public ApiHandler.Reply route(ApiHandler.Call call, List<String> seg, ApiHandler api) {
    try {
      return serve(call, seg, api);
    } catch (StoreUnavailableException e) {
      throw RouteGroup.unavailable(e);
    }
  }

  private ApiHandler.Reply serve(ApiHandler.Call call, List<String> seg, ApiHandler api) {
    if (seg.size() < 3 || seg.size() > 4 || !seg.get(0).equals("pools") || !seg.get(2).equals("units")) {
      return null;
    }
    String pool = seg.get(1);
    if (seg.size() == 4) {
      ApiHandler.allow(call.method(), "DELETE");
      tasks.checkPool(pool);
      UnitsListEditor units = editors.apply(pool);
      api.authorize(call);
      String unit = seg.get(3);
      UnitsListEditor.Edit e = units.remove(checked(List.of(unit)));
      if (e.changed().isEmpty()) {
        throw new TaskServiceException(ErrorKind.NOT_FOUND, "unit: '" + unit + "' is not in the units list '"
            + units.key() + "'");
      }
      return ApiHandler.Reply.json(200, count("removed", 1));
    }
    ApiHandler.allow(call.method(), "GET", "POST");
    tasks.checkPool(pool);
    UnitsListEditor units = editors.apply(pool);
    if (call.method().equals("GET")) {
      ObjectNode o = TaskJson.MAPPER.createObjectNode();
      o.put("pool", pool);
      units.list().forEach(o.putArray("units")::add);
      return ApiHandler.Reply.json(200, o);
    }
    api.authorize(call);
    ObjectNode body = ApiHandler.body(call, Set.of("units"));
    JsonNode given = body.get("units");
    if (given == null || !given.isArray()) {
      throw ApiHandler.badInput("units: must be an array of unit names but was " + TaskJson.kind(given));
    }
    List<String> names = new ArrayList<>();
    for (JsonNode u : given) {
      if (!u.isTextual()) {
        throw ApiHandler.badInput("units: each unit must be a string but one was " + TaskJson.kind(u)
            + "; nothing written");
      }
      names.add(u.asText());
    }
    try {
      return ApiHandler.Reply.json(200, count("added", units.add(pool, checked(names)).changed().size()));
    } catch (UnitsListEditor.PoolHasTasksException e) {
      throw new TaskServiceException(ErrorKind.CONFLICT, "pool: " + e.getMessage());
    }
  }

  private static List<String> checked(List<String> names) {
    try {
      return UnitsListEditor.check(names);
    } catch (IllegalArgumentException e) {
      throw ApiHandler.badInput(e.getMessage());
    }
  }

  private static ObjectNode count(String field, int n) {
    ObjectNode o = TaskJson.MAPPER.createObjectNode();
    o.put(field, n);
    return o;
  }
}
