package io.allot.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.server.http.ApiFixture.Res;
import io.allot.store.MemberMeta;
import io.allot.store.tasks.TaskRun;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The REST API over real HTTP (java.net.http) against a server on a free port with a memory store. */
class ApiHttpTest {
  static ApiFixture f;

  @BeforeAll
  static void start() {
    f = new ApiFixture(ApiFixture.TOKEN);
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  static final String TASKS = "/api/v1/pools/p/tasks";

  @Test
  void theServerTurnsNaglesAlgorithmOff() {
    // with it on, every response written in parts waited for the client's delayed ACK: ~40 ms per request
    assertThat(f.server.tcpNoDelay()).isTrue();
  }

  @Test
  void createGetListUpdateDelete() {
    Res r = f.write("POST", TASKS, "{\"name\":\"crud\",\"args\":{ \"b\":2, \"a\":[1,2] },\"cost\":2}");
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    assertThat(r.raw().headers().firstValue("Location")).hasValue("/api/v1/pools/p/tasks/crud");
    assertThat(r.json().get("args").toString()).isEqualTo("{\"a\":[1,2],\"b\":2}");
    assertThat(r.json().get("status").asText()).isEqualTo("Pending");
    assertThat(r.json().get("reason").asText()).isEqualTo("no live member in pool");
    assertThat(r.json().get("createdAt").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");

    Res same = f.write("POST", TASKS, "{\"args\":{\"a\":[1,2],\"b\":2},\"cost\":2,\"name\":\"crud\"}");
    assertThat(same.status()).as(same.body()).isEqualTo(200);
    assertThat(same.json().get("revision").asLong()).isEqualTo(1);

    Res conflict = f.write("POST", TASKS, "{\"name\":\"crud\",\"args\":{\"a\":1},\"cost\":2}");
    assertThat(conflict.status()).isEqualTo(409);
    assertThat(conflict.error()).contains("name: task 'crud' exists").contains("other args");

    assertThat(f.get(TASKS + "/crud").json().get("cost").asInt()).isEqualTo(2);
    assertThat(f.get(TASKS).json().get("tasks").findValuesAsText("name")).contains("crud");
    assertThat(f.get(TASKS + "?status=Pending").json().get("tasks").findValuesAsText("name")).contains("crud");
    assertThat(f.get(TASKS + "?status=Processing").json().get("tasks").findValuesAsText("name")).doesNotContain("crud");

    Res put = f.write("PUT", TASKS + "/crud", "{\"args\":{\"a\":3}}");
    assertThat(put.status()).as(put.body()).isEqualTo(200);
    assertThat(put.json().get("args").toString()).isEqualTo("{\"a\":3}");
    assertThat(put.json().get("cost").asInt()).isEqualTo(2);
    assertThat(put.json().get("revision").asLong()).isEqualTo(2);
    assertThat(f.write("PUT", TASKS + "/crud", "{\"args\":{\"a\":3},\"cost\":5}").json().get("cost").asInt()).isEqualTo(5);

    Res del = f.write("DELETE", TASKS + "/crud", null);
    assertThat(del.status()).isEqualTo(202);
    assertThat(del.json().get("status").asText()).isEqualTo("Deleted");
    assertThat(del.json().get("deletedAt").isTextual()).isTrue();
    assertThat(f.write("DELETE", TASKS + "/crud", null).status()).isEqualTo(202);
    assertThat(f.write("PUT", TASKS + "/crud", "{\"args\":{}}").status()).isEqualTo(404);
    assertThat(f.get(TASKS + "?status=deleted").json().get("tasks").findValuesAsText("name")).contains("crud");
  }

  @Test
  void defaultsArgsAndCost() {
    Res r = f.write("POST", "/api/v1/pools/q/tasks", "{\"name\":\"bare\"}");
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    assertThat(r.json().get("args").toString()).isEqualTo("{}");
    assertThat(r.json().get("cost").asInt()).isEqualTo(1);
  }

  @Test
  void writesNeedTheTokenReadsAreOpen() {
    Res none = f.call("POST", TASKS, "{\"name\":\"auth\"}", null);
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.error()).contains("authorization");
    assertThat(none.raw().headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"allot\"");
    assertThat(f.call("POST", TASKS, "{\"name\":\"auth\"}", "wrong").error()).isEqualTo("authorization: wrong bearer token");
    assertThat(f.call("PUT", TASKS + "/auth", "{\"args\":{}}", null).status()).isEqualTo(401);
    assertThat(f.call("DELETE", TASKS + "/auth", null, "wrong").status()).isEqualTo(401);
    assertThat(f.get(TASKS + "/auth").status()).isEqualTo(404); // nothing was written

    assertThat(f.write("POST", TASKS, "{\"name\":\"auth\"}").status()).isEqualTo(201);
    assertThat(f.call("DELETE", TASKS + "/auth", null, null).status()).isEqualTo(401);
    assertThat(f.get(TASKS + "/auth").json().get("status").asText()).isEqualTo("Pending");
    assertThat(f.get(TASKS).status()).isEqualTo(200);
    assertThat(f.get("/api/v1/pools").status()).isEqualTo(200);
    assertThat(f.get("/api/v1/pools/p/members").status()).isEqualTo(200);
    assertThat(f.get("/api/v1/openapi.json").status()).isEqualTo(200);
  }

  @Test
  void withoutATokenWritesFromLoopbackAreAccepted() {
    try (ApiFixture open = new ApiFixture(null)) {
      assertThat(open.call("POST", TASKS, "{\"name\":\"x\"}", null).status()).isEqualTo(201);
      assertThat(open.call("DELETE", TASKS + "/x", null, null).status()).isEqualTo(202);
    }
  }

  @Test
  void everyErrorIsJsonNamingTheFieldAndChangesNothing() {
    f.write("POST", TASKS, "{\"name\":\"stay\",\"args\":{\"v\":1}}");
    long version = f.store.taskSpecs("p").version();
    String big = "{\"name\":\"big\",\"args\":{\"a\":\"" + "x".repeat(70_000) + "\"}}";
    String huge = "{\"name\":\"huge\",\"args\":{\"a\":\"" + "x".repeat(1_100_000) + "\"}}";
    Object[][] cases = {
      {"POST", "/api/v1/pools/nope/tasks", "{\"name\":\"t\"}", 404, "pool: unknown pool 'nope'; known pools: p, q"},
      {"GET", "/api/v1/pools/nope/tasks", null, 404, "pool: unknown pool 'nope'"},
      {"GET", "/api/v1/pools/nope/members", null, 404, "pool: unknown pool 'nope'"},
      {"POST", TASKS, "{\"name\":\"bad name\"}", 400, "name: task name 'bad name' has a bad character"},
      {"POST", TASKS, "{\"name\":\"-x\"}", 400, "name: task name '-x'"},
      {"POST", TASKS, "{\"name\":\"" + "n".repeat(201) + "\"}", 400, "name: task name is 201 characters"},
      {"POST", TASKS, "{\"name\":7}", 400, "name: must be a string but was a number"},
      {"POST", TASKS, "{\"args\":{}}", 400, "name: must be a string but was missing"},
      {"POST", TASKS, big, 413, "args: 70008 bytes (canonical JSON); at most 65536"},
      {"POST", TASKS, huge, 413, "args: the request body is over 1048576 bytes"},
      {"POST", TASKS, "{\"name\":\"t\",", 400, "body: malformed JSON"},
      {"POST", TASKS, "", 400, "body: must be a JSON object but was missing"},
      {"POST", TASKS, "[1]", 400, "body: must be a JSON object but was an array"},
      {"POST", TASKS, "{\"name\":\"t\",\"name\":\"u\"}", 400, "body: malformed JSON: Duplicate field 'name'"},
      {"POST", TASKS, "{\"name\":\"t\",\"argz\":{}}", 400, "body: unknown field 'argz'; the fields are args, cost, name"},
      {"POST", TASKS, "{\"name\":\"t\",\"args\":[1]}", 400, "args: must be a JSON object but was an array"},
      {"POST", TASKS, "{\"name\":\"t\",\"args\":\"{}\"}", 400, "args: must be a JSON object but was a string"},
      {"POST", TASKS, "{\"name\":\"t\",\"args\":null}", 400, "args: must be a JSON object but was null"},
      {"POST", TASKS, "{\"name\":\"t\",\"cost\":0}", 400, "cost: task cost must be 1 to 1000000 but was 0"},
      {"POST", TASKS, "{\"name\":\"t\",\"cost\":1000001}", 400, "cost: task cost must be 1 to 1000000"},
      {"POST", TASKS, "{\"name\":\"t\",\"cost\":1.5}", 400, "cost: must be an integer"},
      {"POST", TASKS, "{\"name\":\"t\",\"cost\":\"1\"}", 400, "cost: must be an integer"},
      {"POST", TASKS, "{\"name\":\"t\",\"cost\":99999999999}", 400, "cost: must be an integer"},
      {"POST", TASKS, "{\"name\":\"stay\",\"args\":{\"v\":2}}", 409, "name: task 'stay' exists in pool 'p' with other args"},
      {"PUT", TASKS + "/stay", "{\"cost\":2}", 400, "args: missing"},
      {"PUT", TASKS + "/stay", "{\"args\":{},\"name\":\"other\"}", 400, "name: the body names \"other\""},
      {"PUT", TASKS + "/stay", "{\"args\":5}", 400, "args: must be a JSON object but was a number"},
      {"PUT", TASKS + "/stay", "{\"args\":{},\"cost\":-1}", 400, "cost:"},
      {"PUT", TASKS + "/missing", "{\"args\":{}}", 404, "name: no task 'missing' in pool 'p'"},
      {"GET", TASKS + "/missing", null, 404, "name: no task 'missing' in pool 'p'"},
      {"DELETE", TASKS + "/missing", null, 404, "name: no task 'missing'"},
      {"GET", TASKS + "/bad%20name", null, 400, "name: task name 'bad name'"},
      {"GET", TASKS + "?status=Running", null, 400, "status: status 'Running' is not one of Created, Processing, OnDeleting, Deleted, Failed, Pending"},
      {"PATCH", TASKS + "/stay", "{}", 405, "method: PATCH is not allowed here; use GET, PUT, DELETE"},
      {"DELETE", TASKS, null, 405, "method: DELETE is not allowed here; use GET, POST"},
      {"POST", "/api/v1/pools", "{}", 405, "method: POST is not allowed here; use GET"},
      {"GET", "/api/v1/nothing", null, 404, "path: no such path '/api/v1/nothing'"},
      {"GET", "/api/v1/pools/p/tasks/stay/more", null, 404, "path: no such path"},
      {"GET", "/api/v1x", null, 404, "path: no such path '/api/v1x'"},
    };
    for (Object[] c : cases) {
      Res r = f.write((String) c[0], (String) c[1], (String) c[2]);
      String what = c[0] + " " + c[1] + " " + (c[2] == null ? "" : ((String) c[2]).substring(0, Math.min(80, ((String) c[2]).length())));
      assertThat(r.status()).as(what + " -> " + r.body()).isEqualTo(c[3]);
      assertThat(r.raw().headers().firstValue("Content-Type")).as(what).hasValue("application/json");
      assertThat(r.error()).as(what).isNotNull().contains((String) c[4]);
    }
    assertThat(f.write("PATCH", TASKS + "/stay", "{}").raw().headers().firstValue("Allow")).hasValue("GET, PUT, DELETE");
    assertThat(f.store.taskSpecs("p").version()).as("bad input changes nothing").isEqualTo(version);
    assertThat(f.get(TASKS + "/stay").json().get("args").toString()).isEqualTo("{\"v\":1}");
    assertThat(f.store.taskSpecs("nope").list()).isEmpty();
  }

  @Test
  void statusesFromMembersClaimsAndRuns() {
    f.write("POST", "/api/v1/pools/q/tasks", "{\"name\":\"run\",\"cost\":3}");
    long session = f.store.membership("q").register("127.0.0.1:7001", MemberMeta.of(1, 8).with("version", "2.0"),
        Duration.ofSeconds(5));
    assertThat(f.get("/api/v1/pools/q/tasks/run").json().get("status").asText()).isEqualTo("Created");
    long token = f.store.ownership("q").claim("run", "127.0.0.1:7001", session).orElseThrow();
    f.store.taskSpecs("q").started("run", new TaskRun("127.0.0.1:7001", token, 1, 0));
    Res r = f.get("/api/v1/pools/q/tasks/run");
    assertThat(r.json().get("status").asText()).isEqualTo("Processing");
    assertThat(r.json().get("owner").asText()).isEqualTo("127.0.0.1:7001");
    assertThat(r.json().get("token").asLong()).isEqualTo(token);
    assertThat(f.get("/api/v1/pools/q/tasks?status=Processing").json().get("tasks").findValuesAsText("name"))
        .containsExactly("run");

    Res members = f.get("/api/v1/pools/q/members");
    assertThat(members.json().get("members").get(0).get("id").asText()).isEqualTo("127.0.0.1:7001");
    assertThat(members.json().get("members").get(0).get("up").asBoolean()).isTrue();
    assertThat(members.json().get("members").get(0).get("capacity").asInt()).isEqualTo(8);
    assertThat(members.json().get("members").get(0).get("version").asText()).isEqualTo("2.0");

    assertThat(f.write("DELETE", "/api/v1/pools/q/tasks/run", null).json().get("status").asText()).isEqualTo("OnDeleting");
    assertThat(f.get("/api/v1/pools/q/tasks/run").json().get("status").asText()).isEqualTo("OnDeleting");
    f.store.ownership("q").release("run", "127.0.0.1:7001", token);
    Res gone = f.get("/api/v1/pools/q/tasks/run");
    assertThat(gone.json().get("status").asText()).isEqualTo("Deleted");
    assertThat(gone.json().get("owner").isNull()).isTrue();
  }

  @Test
  void poolsListsTheServersPools() {
    Res r = f.get("/api/v1/pools");
    assertThat(r.json().get("pools").findValuesAsText("name")).containsExactly("p", "q");
  }

  @Test
  void opsEndpointsStillServed() {
    assertThat(f.get("/healthz").body()).isEqualTo("ok\n");
    assertThat(f.get("/version").body()).isEqualTo("test");
    assertThat(f.get("/metrics").status()).isEqualTo(200);
  }

  /** Every kind of refusal has its HTTP status (a kind added without one fails here). */
  @ParameterizedTest
  @EnumSource(ErrorKind.class)
  void everyErrorKindAnswersWithItsHttpStatus(ErrorKind kind) {
    Map<ErrorKind, Integer> expected = Map.of(ErrorKind.BAD_INPUT, 400, ErrorKind.UNAUTHENTICATED, 401,
        ErrorKind.NOT_FOUND, 404, ErrorKind.CONFLICT, 409, ErrorKind.TOO_LARGE, 413, ErrorKind.UNAVAILABLE, 503);
    assertThat(expected).containsKey(kind);
    assertThat(ApiHandler.httpStatus(kind)).isEqualTo(expected.get(kind));
  }
}
