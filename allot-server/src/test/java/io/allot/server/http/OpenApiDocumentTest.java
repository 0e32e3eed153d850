package io.allot.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.allot.server.http.ApiFixture.Res;
import io.allot.store.MemberMeta;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.NewJob;
import io.allot.tasks.service.TaskJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document against the implementation: the same routes both ways, every documented route served, every
 * documented status reachable for the cases exercised, and every response body has exactly the documented fields.
 */
class OpenApiDocumentTest {
  static ApiFixture f;
  static JsonNode doc;

  @BeforeAll
  static void start() throws Exception {
    f = new ApiFixture(ApiFixture.TOKEN);
    doc = TaskJson.MAPPER.readTree(ApiHandler.openApiDocument());
    f.store.membership("p").register("127.0.0.1:9", MemberMeta.of(1, 4).with("version", "1"), Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  static Set<String> documentedRoutes() {
    Set<String> out = new TreeSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = doc.get("paths").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      p.getValue().fieldNames().forEachRemaining(m -> out.add(m.toUpperCase() + " " + p.getKey()));
    }
    return out;
  }

  @Test
  void documentAndImplementationListTheSameRoutes() {
    assertThat(documentedRoutes()).containsExactlyInAnyOrderElementsOf(ApiHandler.ROUTES);
  }

  @Test
  void servedDocumentIsTheResource() {
    Res r = f.get("/api/v1/openapi.json");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json()).isEqualTo(doc);
    assertThat(doc.get("openapi").asText()).startsWith("3.");
  }

  /** Calls every documented route with a valid request; each answers a documented success with the schema's fields. */
  @Test
  void everyDocumentedRouteIsServedWithTheDocumentedShape() {
    f.write("POST", "/api/v1/pools/p/tasks", "{\"name\":\"doc-get\",\"args\":{\"k\":1}}");
    f.write("POST", "/api/v1/pools/p/tasks", "{\"name\":\"doc-put\"}");
    f.write("POST", "/api/v1/pools/p/tasks", "{\"name\":\"doc-del\"}");
    Map<String, String[]> calls = new java.util.HashMap<>(Map.of(
        "GET /api/v1/openapi.json", new String[] {"/api/v1/openapi.json", null},
        "GET /api/v1/pools", new String[] {"/api/v1/pools", null},
        "GET /api/v1/pools/{pool}/members", new String[] {"/api/v1/pools/p/members", null},
        "GET /api/v1/pools/{pool}/tasks", new String[] {"/api/v1/pools/p/tasks", null},
        "POST /api/v1/pools/{pool}/tasks", new String[] {"/api/v1/pools/p/tasks", "{\"name\":\"doc-new\",\"args\":{}}"},
        "GET /api/v1/pools/{pool}/tasks/{name}", new String[] {"/api/v1/pools/p/tasks/doc-get", null},
        "PUT /api/v1/pools/{pool}/tasks/{name}", new String[] {"/api/v1/pools/p/tasks/doc-put", "{\"args\":{\"x\":1}}"},
        "DELETE /api/v1/pools/{pool}/tasks/{name}", new String[] {"/api/v1/pools/p/tasks/doc-del", null}));
    f.store.seedKeys().replaceList(ApiFixture.UNITS, List.of("doc-u1", "doc-u2"));
    calls.putAll(Map.of(
        "GET /api/v1/pools/{pool}/table", new String[] {"/api/v1/pools/q/table", null},
        "GET /api/v1/pools/{pool}/units", new String[] {"/api/v1/pools/q/units", null},
        "POST /api/v1/pools/{pool}/units", new String[] {"/api/v1/pools/q/units", "{\"units\":[\"doc-u3\"]}"},
        "DELETE /api/v1/pools/{pool}/units/{unit}", new String[] {"/api/v1/pools/q/units/doc-u1", null}));
    f.store.jobQueue("doc-q").enqueue(List.of(NewJob.of("j1"), NewJob.of("j2"), NewJob.of("j3")));
    ClaimedJob failing = f.store.jobQueue("doc-q").claim("w", 1, Duration.ofSeconds(30)).get(0);
    f.store.jobQueue("doc-q").fail(failing.key(), failing.token(), "boom", Duration.ofHours(1));
    calls.putAll(Map.of(
        "GET /api/v1/pools/{pool}/weights", new String[] {"/api/v1/pools/q/weights", null},
        "PUT /api/v1/pools/{pool}/weights", new String[] {"/api/v1/pools/q/weights", "{\"weights\":{\"v1\":9}}"},
        "GET /api/v1/queues", new String[] {"/api/v1/queues", null},
        "GET /api/v1/queues/{queue}", new String[] {"/api/v1/queues/doc-q", null},
        "POST /api/v1/queues/{queue}/jobs/{key}/retry", new String[] {"/api/v1/queues/doc-q/jobs/j2/retry", null},
        "POST /api/v1/queues/{queue}/jobs/{key}/ignore", new String[] {"/api/v1/queues/doc-q/jobs/j3/ignore", null}));
    calls.put("GET /api/v1/events", new String[] {"/api/v1/events?limit=5", null});
    // the stream never ends: EventApiTest checks it
    assertThat(calls.keySet()).containsExactlyInAnyOrderElementsOf(documentedRoutes().stream()
        .filter(r -> !r.equals("GET /api/v1/events/stream")).toList());
    for (Map.Entry<String, String[]> c : calls.entrySet()) {
      String method = c.getKey().substring(0, c.getKey().indexOf(' '));
      String template = c.getKey().substring(c.getKey().indexOf(' ') + 1);
      Res r = f.write(method, c.getValue()[0], c.getValue()[1]);
      JsonNode op = doc.get("paths").get(template).get(method.toLowerCase());
      JsonNode documented = op.get("responses").get(String.valueOf(r.status()));
      assertThat(documented).as(c.getKey() + " answered " + r.status() + " which the document does not list: " + r.body())
          .isNotNull();
      assertThat(r.status()).as(c.getKey()).isBetween(200, 299);
      JsonNode schema = schemaOf(documented);
      if (schema != null && schema.has("properties")) {
        checkShape(c.getKey(), schema, r.json());
      }
    }
  }

  /** Error answers: each status the API gave in the cases below is documented for its route, with the Error shape. */
  @Test
  void documentedErrorsHaveTheErrorShape() {
    Object[][] cases = {
      {"POST /api/v1/pools/{pool}/tasks", "POST", "/api/v1/pools/p/tasks", "{\"name\":\"bad name\"}", null},
      {"POST /api/v1/pools/{pool}/tasks", "POST", "/api/v1/pools/p/tasks", "{\"name\":\"x\"}", "wrong"},
      {"POST /api/v1/pools/{pool}/tasks", "POST", "/api/v1/pools/nope/tasks", "{\"name\":\"x\"}", null},
      {"POST /api/v1/pools/{pool}/tasks", "POST", "/api/v1/pools/p/tasks", "{\"name\":\"doc-big\",\"args\":{\"a\":\"" + "x".repeat(70000) + "\"}}", null},
      {"POST /api/v1/pools/{pool}/tasks", "POST", "/api/v1/pools/p/tasks", "{\"name\":\"doc-conflict\",\"cost\":9}", null},
      {"GET /api/v1/pools/{pool}/tasks", "GET", "/api/v1/pools/p/tasks?status=nope", null, null},
      {"GET /api/v1/pools/{pool}/tasks/{name}", "GET", "/api/v1/pools/p/tasks/missing", null, null},
      {"PUT /api/v1/pools/{pool}/tasks/{name}", "PUT", "/api/v1/pools/p/tasks/missing", "{\"args\":{}}", null},
      {"DELETE /api/v1/pools/{pool}/tasks/{name}", "DELETE", "/api/v1/pools/p/tasks/missing", null, null},
      {"GET /api/v1/pools/{pool}/members", "GET", "/api/v1/pools/nope/members", null, null},
      {"GET /api/v1/events", "GET", "/api/v1/events?kind=nope", null, null},
      {"GET /api/v1/pools/{pool}/table", "GET", "/api/v1/pools/nope/table", null, null},
      {"GET /api/v1/pools/{pool}/units", "GET", "/api/v1/pools/nope/units", null, null},
      {"POST /api/v1/pools/{pool}/units", "POST", "/api/v1/pools/q/units", "{\"units\":[\"a,b\"]}", null},
      {"POST /api/v1/pools/{pool}/units", "POST", "/api/v1/pools/p/units", "{\"units\":[\"doc-x\"]}", null},
      {"POST /api/v1/pools/{pool}/units", "POST", "/api/v1/pools/q/units", "{\"units\":[\"x\"]}", "wrong"},
      {"DELETE /api/v1/pools/{pool}/units/{unit}", "DELETE", "/api/v1/pools/q/units/never-listed", null, null},
      {"GET /api/v1/pools/{pool}/weights", "GET", "/api/v1/pools/nope/weights", null, null},
      {"PUT /api/v1/pools/{pool}/weights", "PUT", "/api/v1/pools/q/weights", "{\"weights\":{\"v\":-1}}", null},
      {"GET /api/v1/queues/{queue}", "GET", "/api/v1/queues/never-used", null, null},
      {"GET /api/v1/queues/{queue}", "GET", "/api/v1/queues/bad%20name", null, null},
      {"POST /api/v1/queues/{queue}/jobs/{key}/retry", "POST", "/api/v1/queues/doc-q2/jobs/missing/retry", null, null},
      {"POST /api/v1/queues/{queue}/jobs/{key}/ignore", "POST", "/api/v1/queues/doc-q2/jobs/done/ignore", null, null},
    };
    f.store.jobQueue("doc-q2").enqueue(NewJob.of("done"));
    ClaimedJob done = f.store.jobQueue("doc-q2").claim("w", 1, Duration.ofSeconds(30)).get(0);
    f.store.jobQueue("doc-q2").finish(done.key(), done.token());
    f.write("POST", "/api/v1/pools/p/tasks", "{\"name\":\"doc-conflict\"}");
    List<String> seen = new ArrayList<>();
    for (Object[] c : cases) {
      String route = (String) c[0];
      String token = c[4] == null ? ApiFixture.TOKEN : (String) c[4];
      Res r = f.call((String) c[1], (String) c[2], (String) c[3], token);
      String template = route.substring(route.indexOf(' ') + 1);
      JsonNode documented = doc.get("paths").get(template).get(((String) c[1]).toLowerCase()).get("responses")
          .get(String.valueOf(r.status()));
      assertThat(documented).as(route + " answered " + r.status() + ", not documented: " + r.body()).isNotNull();
      checkShape(route, schemaOf(documented), r.json());
      seen.add(route + " " + r.status());
    }
    assertThat(seen).contains("POST /api/v1/pools/{pool}/tasks 401", "POST /api/v1/pools/{pool}/tasks 413",
        "POST /api/v1/pools/{pool}/tasks 409", "POST /api/v1/pools/{pool}/units 400",
        "POST /api/v1/pools/{pool}/units 409", "DELETE /api/v1/pools/{pool}/units/{unit} 404",
        "PUT /api/v1/pools/{pool}/weights 400", "GET /api/v1/queues/{queue} 404", "GET /api/v1/queues/{queue} 400",
        "POST /api/v1/queues/{queue}/jobs/{key}/retry 404", "POST /api/v1/queues/{queue}/jobs/{key}/ignore 409");
  }

  @Test
  void examplesHaveTheirSchemasFields() {
    for (Iterator<Map.Entry<String, JsonNode>> it = doc.get("components").get("schemas").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> s = it.next();
      if (s.getValue().has("example") && s.getValue().has("required")) {
        Set<String> fields = new HashSet<>();
        s.getValue().get("example").fieldNames().forEachRemaining(fields::add);
        Set<String> required = new HashSet<>();
        s.getValue().get("required").forEach(n -> required.add(n.asText()));
        assertThat(fields).as("example of " + s.getKey()).containsAll(required);
        Set<String> props = new HashSet<>();
        s.getValue().get("properties").fieldNames().forEachRemaining(props::add);
        assertThat(props).as("properties of " + s.getKey()).containsAll(fields);
      }
    }
  }

  private static JsonNode schemaOf(JsonNode response) {
    JsonNode content = response.get("content");
    if (content == null) {
      return null;
    }
    return resolve(content.get("application/json").get("schema"));
  }

  private static JsonNode resolve(JsonNode schema) {
    if (schema != null && schema.has("$ref")) {
      String name = schema.get("$ref").asText().replace("#/components/schemas/", "");
      return doc.get("components").get("schemas").get(name);
    }
    return schema;
  }

  /** The body's fields are exactly the schema's properties (all present: required), recursively through arrays. */
  private static void checkShape(String where, JsonNode schema, JsonNode body) {
    assertThat(body).as(where).isNotNull();
    if (schema.has("properties")) {
      Set<String> props = new TreeSet<>();
      schema.get("properties").fieldNames().forEachRemaining(props::add);
      Set<String> fields = new TreeSet<>();
      body.fieldNames().forEachRemaining(fields::add);
      assertThat(fields).as(where + " fields").isEqualTo(props);
      Set<String> required = new TreeSet<>();
      schema.path("required").forEach(n -> required.add(n.asText()));
      assertThat(required).as(where + " required = properties for responses").isEqualTo(props);
      for (String p : props) {
        JsonNode ps = resolve(schema.get("properties").get(p));
        JsonNode v = body.get(p);
        if (ps.has("items") && v.isArray()) {
          JsonNode item = resolve(ps.get("items"));
          v.forEach(e -> checkShape(where + "." + p + "[]", item, e));
        }
        if (v.isNull()) {
          assertThat(ps.path("nullable").asBoolean()).as(where + "." + p + " is null but not nullable").isTrue();
        } else if (ps.has("type")) {
          String type = ps.get("type").asText();
          boolean ok = switch (type) {
            case "string" -> v.isTextual();
            case "integer" -> v.isIntegralNumber();
            case "boolean" -> v.isBoolean();
            case "object" -> v.isObject();
            case "array" -> v.isArray();
            default -> true;
          };
          assertThat(ok).as(where + "." + p + " should be " + type + " but is " + v).isTrue();
        }
      }
    }
  }
}
