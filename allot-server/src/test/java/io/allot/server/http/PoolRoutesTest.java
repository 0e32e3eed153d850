package io.allot.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.allot.server.http.ApiFixture.Res;
import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.Tables;
import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /pools/{pool}/table} and {@code /pools/{pool}/units}: the table of one pool with owners, tokens and states
 * (ping-judged members included), and the units list edited as {@code allot units} edits it; bad input, unknown
 * pools and refused writes change nothing.
 */
class PoolRoutesTest {
  final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  final MemoryStore store = new MemoryStore(nanos::get);
  final List<ApiFixture> fixtures = new ArrayList<>();

  @AfterEach
  void close() {
    fixtures.forEach(ApiFixture::close);
    store.close();
  }

  /** A server on {@link #store}, its ping verdicts {@code pings} for pool q; writes from non-loopback if not. */
  ApiFixture server(Map<String, Boolean> pings, boolean loopback) {
    TaskService tasks = TaskService.forPools(store, ApiFixture.TABLE, List.of("p", "q"))
        .withPingVerdicts(pool -> pool.equals("q") ? pings : Map.of());
    ApiHandler api = new ApiHandler(tasks, null, false, a -> loopback)
        .withRoutes(ServerRoutes.of(store, tasks, ApiFixture.TABLE, ApiFixture.UNITS));
    ApiFixture f = new ApiFixture(api, null);
    fixtures.add(f);
    return f;
  }

  @Test
  void theTableOfAPoolShowsItsUnitsOnlyWithOwnersTokensAndStates() {
    long s1 = store.membership("q").register("m1", MemberMeta.DEFAULT, Duration.ofSeconds(30));
    long s2 = store.membership("q").register("m2", MemberMeta.DEFAULT, Duration.ofSeconds(30));
    store.membership("p").register("other", MemberMeta.DEFAULT, Duration.ofSeconds(30));
    store.seedKeys().replaceList(ApiFixture.UNITS, List.of("u1", "u2", "u3", "u4", "u5"));
    Lease lease = store.leadership().tryAcquire(Tables.leaseName(ApiFixture.TABLE, "q"), "d", Duration.ofSeconds(30))
        .orElseThrow();
    store.tables().publish(lease, ApiFixture.TABLE, "q", Map.of("m1", "u1,u2", "m2", "u3", "10.0.0.9:80", "u5"));
    Lease other = store.leadership().tryAcquire(Tables.leaseName(ApiFixture.TABLE, "p"), "d", Duration.ofSeconds(30))
        .orElseThrow();
    store.tables().publish(other, ApiFixture.TABLE, "p", Map.of("other", "x1"));
    long t1 = store.ownership("q").claim("u1", "m1", s1).orElseThrow();
    long t2 = store.ownership("q").claim("u2", "m2", s2).orElseThrow();
    ApiFixture f = server(Map.of("10.0.0.9:80", true), true);

    Res r = f.get("/api/v1/pools/q/table");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    JsonNode t = r.json();
    assertThat(t.get("pool").asText()).isEqualTo("q");
    assertThat(t.get("epoch").asLong()).isPositive();
    List<String> units = new ArrayList<>();
    t.get("units").forEach(u -> units.add(u.get("unit").asText() + " " + u.get("member").asText("-") + " "
        + u.get("owner").asText("-") + " " + u.get("token").asText("-") + " " + u.get("state").asText()));
    assertThat(units).containsExactly(
        "u1 m1 m1 " + t1 + " owned",
        "u2 m1 m2 " + t2 + " handoff",
        "u3 m2 - - unowned",
        "u4 - - - unowned",
        "u5 10.0.0.9:80 10.0.0.9:80 - owned");
    List<String> members = new ArrayList<>();
    t.get("members").forEach(m -> members.add(m.get("member").asText() + " " + m.get("units").asInt() + " "
        + m.get("ideal").asDouble()));
    double third = 5.0 / 3;
    assertThat(members).containsExactly("10.0.0.9:80 1 " + third, "m1 2 " + third, "m2 1 " + third);

    // a member whose lease ended holds no live claim; the ping-judged member down owns nothing
    nanos.addAndGet(Duration.ofSeconds(31).toNanos());
    ApiFixture later = server(Map.of("10.0.0.9:80", false), true);
    JsonNode t2json = later.get("/api/v1/pools/q/table").json();
    t2json.get("units").forEach(u -> assertThat(u.get("state").asText()).isEqualTo("unowned"));
    t2json.get("members").forEach(m -> assertThat(m.get("ideal").asDouble()).isZero());
  }

  @Test
  void theTableOfAnUnknownPoolIs404AndItTakesOnlyGet() {
    ApiFixture f = server(Map.of(), true);
    Res r = f.get("/api/v1/pools/nope/table");
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.error()).startsWith("pool: unknown pool 'nope'");
    Res post = f.call("POST", "/api/v1/pools/q/table", "{}", null);
    assertThat(post.status()).isEqualTo(405);
    assertThat(post.raw().headers().firstValue("Allow")).hasValue("GET");
    JsonNode empty = f.get("/api/v1/pools/q/table").json();
    assertThat(empty.get("epoch").isNull()).isTrue();
    assertThat(empty.get("units")).isEmpty();
  }

  @Test
  void unitsAreListedAddedAndRemovedAsTheCliDoes() {
    ApiFixture f = server(Map.of(), true);
    store.seedKeys().replaceList(ApiFixture.UNITS, List.of("a"));
    Res add = f.call("POST", "/api/v1/pools/q/units", "{\"units\":[\"b\",\"c\",\"a\"]}", null);
    assertThat(add.status()).as(add.body()).isEqualTo(200);
    assertThat(add.json().get("added").asInt()).isEqualTo(2);
    JsonNode list = f.get("/api/v1/pools/q/units").json();
    assertThat(list.get("pool").asText()).isEqualTo("q");
    assertThat(list.get("units")).extracting(JsonNode::asText).containsExactly("b", "c", "a");
    Res del = f.call("DELETE", "/api/v1/pools/q/units/c", null, null);
    assertThat(del.status()).isEqualTo(200);
    assertThat(del.json().get("removed").asInt()).isEqualTo(1);
    assertThat(store.seedKeys().list(ApiFixture.UNITS)).containsExactly("b", "a");
    Res again = f.call("DELETE", "/api/v1/pools/q/units/c", null, null);
    assertThat(again.status()).isEqualTo(404);
    assertThat(again.error()).isEqualTo("unit: 'c' is not in the units list 'sys-channels'");
    Res put = f.call("PUT", "/api/v1/pools/q/units", "{}", null);
    assertThat(put.status()).isEqualTo(405);
  }

  @Test
  void badUnitsUnknownPoolsAndPoolsWithTasksWriteNothing() {
    ApiFixture f = server(Map.of(), true);
    store.seedKeys().replaceList(ApiFixture.UNITS, List.of("a"));
    Object[][] cases = {
      {"/api/v1/pools/q/units", "{\"units\":[\"ok\",\"a,b\"]}", 400, "unit 'a,b': contains ','"},
      {"/api/v1/pools/q/units", "{\"units\":[\"ok\",\"ok\"]}", 400, "unit 'ok': named twice"},
      {"/api/v1/pools/q/units", "{\"units\":[\"ok\",\"" + "x".repeat(201) + "\"]}", 400, "unit 'xxxx"},
      {"/api/v1/pools/q/units", "{\"units\":[]}", 400, "units: name at least one unit"},
      {"/api/v1/pools/q/units", "{\"units\":\"ok\"}", 400, "units: must be an array"},
      {"/api/v1/pools/q/units", "{\"units\":[\"ok\",3]}", 400, "units: each unit must be a string"},
      {"/api/v1/pools/q/units", "{\"units\":[\"ok\"],\"x\":1}", 400, "body: unknown field 'x'"},
      {"/api/v1/pools/q/units", "{\"units\":[\"ok\"", 400, "body: malformed JSON"},
      {"/api/v1/pools/q/units", null, 400, "body: must be a JSON object but was missing"},
      {"/api/v1/pools/nope/units", "{\"units\":[\"ok\"]}", 404, "pool: unknown pool 'nope'"},
    };
    for (Object[] c : cases) {
      Res r = f.call("POST", (String) c[0], (String) c[1], null);
      assertThat(r.status()).as(r.body()).isEqualTo(c[2]);
      assertThat(r.error()).startsWith((String) c[3]);
    }
    Res del = f.call("DELETE", "/api/v1/pools/nope/units/a", null, null);
    assertThat(del.status()).isEqualTo(404);
    TaskService.forPools(store, ApiFixture.TABLE, List.of("p")).create("p", "t", "{}", 1);
    Res tasks = f.call("POST", "/api/v1/pools/p/units", "{\"units\":[\"ok\"]}", null);
    assertThat(tasks.status()).isEqualTo(409);
    assertThat(tasks.error()).startsWith("pool: pool 'p' takes its units from its 1 long-running task(s)");
    assertThat(store.seedKeys().list(ApiFixture.UNITS)).containsExactly("a");
  }

  @Test
  void writesWithoutATokenFromAnotherAddressAreRefusedAndChangeNothing() {
    ApiFixture f = server(Map.of(), false);
    store.seedKeys().replaceList(ApiFixture.UNITS, List.of("a"));
    Res add = f.call("POST", "/api/v1/pools/q/units", "{\"units\":[\"b\"]}", null);
    assertThat(add.status()).isEqualTo(403);
    assertThat(add.error()).isEqualTo(ApiHandler.LOOPBACK_ONLY);
    assertThat(f.call("DELETE", "/api/v1/pools/q/units/a", null, null).status()).isEqualTo(403);
    assertThat(store.seedKeys().list(ApiFixture.UNITS)).containsExactly("a");
    assertThat(f.get("/api/v1/pools/q/units").status()).isEqualTo(200); // reads stay open
    assertThat(f.get("/api/v1/pools/q/table").status()).isEqualTo(200);
  }
}
