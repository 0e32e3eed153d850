package io.allot.tasks.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.allot.store.tasks.TaskLimits;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The JSON of the task API: arguments in canonical form, and the JSON shapes of tasks, members, pools and errors
 * (the REST API and {@code allot task} print these). Thread-safe.
 */
public final class TaskJson {
  /**
   * The mapper: duplicate keys and trailing tokens are errors, floats keep their digits (BigDecimal, trailing zeros
   * stripped).
   */
  public static final JsonMapper MAPPER = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .build();

  private static final JsonNodeFactory NODES = MAPPER.getNodeFactory();

  private TaskJson() {}

  /**
   * The canonical text of arguments: parsed, every object's keys sorted, written without whitespace. Two texts that
   * differ only in whitespace or key order have the same canonical text.
   *
   * @throws TaskServiceException {@code BAD_INPUT} naming {@code args} if the text is not JSON or not an object;
   *     {@code TOO_LARGE} if the canonical text is over {@link TaskLimits#MAX_ARGS_BYTES} bytes
   */
  public static String canonicalArgs(String text) {
    if (text == null) {
      throw TaskServiceException.badRequest("args: must be a JSON object but was missing");
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw TaskServiceException.badRequest("args: not valid JSON: " + e.getOriginalMessage());
    }
    return canonicalArgs(node);
  }

  /** {@link #canonicalArgs(String)} of a parsed tree. */
  public static String canonicalArgs(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      throw TaskServiceException.badRequest("args: must be a JSON object but was missing");
    }
    if (!node.isObject()) {
      throw TaskServiceException.badRequest("args: must be a JSON object but was " + kind(node));
    }
    String canonical;
    try {
      canonical = MAPPER.writeValueAsString(sorted(node));
    } catch (JsonProcessingException e) {
      throw TaskServiceException.badRequest("args: cannot be written as JSON: " + e.getOriginalMessage());
    }
    int bytes = canonical.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > TaskLimits.MAX_ARGS_BYTES) {
      throw new TaskServiceException(TaskServiceException.ErrorKind.TOO_LARGE, "args: " + bytes + " bytes (canonical JSON); at most " + TaskLimits.MAX_ARGS_BYTES);
    }
    return canonical;
  }

  /** "an array", "a string", ... for messages. */
  public static String kind(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "missing";
    }
    return switch (node.getNodeType()) {
      case ARRAY -> "an array";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      case OBJECT, POJO -> "an object";
      default -> node.getNodeType().name().toLowerCase();
    };
  }

  private static JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      Collections.sort(names);
      ObjectNode out = NODES.objectNode();
      for (String n : names) {
        out.set(n, sorted(node.get(n)));
      }
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = NODES.arrayNode();
      for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
        out.add(sorted(it.next()));
      }
      return out;
    }
    return node;
  }

  /**
   * A task: {@code name, args (object), cost, revision, status, owner, token, createdAt, updatedAt, deletedAt,
   * lastError, reason}; times as ISO-8601 UTC instants, {@code deletedAt} null while live; absent values are null.
   */
  public static ObjectNode task(TaskView t) {
    ObjectNode o = NODES.objectNode();
    o.put("name", t.name());
    try {
      o.set("args", MAPPER.readTree(t.args()));
    } catch (JsonProcessingException e) {
      o.put("args", t.args()); // written by something else than this API: shown as text
    }
    o.put("cost", t.cost());
    o.put("revision", t.revision());
    o.put("status", t.status().jsonName());
    o.put("owner", t.owner());
    if (t.token() == null) {
      o.putNull("token");
    } else {
      o.put("token", t.token());
    }
    o.put("createdAt", instant(t.createdMillis()));
    o.put("updatedAt", instant(t.updatedMillis()));
    o.put("deletedAt", t.deletedMillis() > 0 ? instant(t.deletedMillis()) : null);
    o.put("lastError", t.lastError());
    o.put("reason", t.reason());
    return o;
  }

  /** {@code {"tasks": [...]}}. */
  public static ObjectNode tasks(List<TaskView> tasks) {
    ObjectNode o = NODES.objectNode();
    ArrayNode a = o.putArray("tasks");
    tasks.forEach(t -> a.add(task(t)));
    return o;
  }

  /**
   * A member: {@code id, up, leaseExpiresAt (null for a member judged by pings), affinity, capacity (null = no
   * limit), used, version, judgedBy ("lease" or "ping"), zone (null for none), labels (an object, empty for none)}.
   */
  public static ObjectNode member(MemberView m) {
    ObjectNode o = NODES.objectNode();
    o.put("id", m.id());
    o.put("up", m.up());
    o.put("leaseExpiresAt", m.judgedBy().equals(MemberView.PING) ? null : instant(m.leaseUntilMillis()));
    o.put("affinity", m.affinity());
    if (m.capacity() == null) {
      o.putNull("capacity");
    } else {
      o.put("capacity", m.capacity());
    }
    o.put("used", m.used());
    o.put("version", m.version());
    o.put("judgedBy", m.judgedBy());
    o.put("zone", m.zone());
    ObjectNode labels = o.putObject("labels");
    m.labels().forEach(labels::put);
    return o;
  }

  /** {@code {"pool": ..., "members": [...]}}. */
  public static ObjectNode members(String pool, List<MemberView> members) {
    ObjectNode o = NODES.objectNode();
    o.put("pool", pool);
    ArrayNode a = o.putArray("members");
    members.forEach(m -> a.add(member(m)));
    return o;
  }

  /** {@code {"pools": [{"name", "tasks", "deleted", "liveMembers"}]}}. */
  public static ObjectNode pools(List<PoolInfo> pools) {
    ObjectNode o = NODES.objectNode();
    ArrayNode a = o.putArray("pools");
    for (PoolInfo p : pools) {
      ObjectNode po = a.addObject();
      po.put("name", p.name());
      po.put("tasks", p.tasks());
      po.put("deleted", p.deleted());
      po.put("liveMembers", p.liveMembers());
    }
    return o;
  }

  /** {@code {"error": message}}. */
  public static ObjectNode error(String message) {
    ObjectNode o = NODES.objectNode();
    o.put("error", message);
    return o;
  }

  /** Epoch milliseconds as an ISO-8601 UTC instant. */
  public static String instant(long millis) {
    return Instant.ofEpochMilli(millis).toString();
  }

  /** {@code node} as compact text. */
  public static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  /** {@code node} as indented text. */
  public static String writePretty(JsonNode node) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }
}
