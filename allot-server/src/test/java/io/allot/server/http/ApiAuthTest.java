package io.allot.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.server.auth.Authenticator;
import io.allot.server.auth.Role;
import io.allot.server.auth.TokenFile;
import io.allot.server.http.ApiFixture.Res;
import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskService;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every REST write path refused without a write token; reads closed by a read token; a token file reloaded. */
class ApiAuthTest {
  static final String TASKS = "/api/v1/pools/p/tasks";
  static final String WRITE = "w-token";
  static final String READ = "r-token";

  @TempDir Path dir;

  static ApiFixture fixture(Authenticator auth) {
    MemoryStore store = new MemoryStore();
    return new ApiFixture(ApiHandler.checkedBy(TaskService.forPools(store, ApiFixture.TABLE, List.of("p")), auth),
        store);
  }

  @Test
  void everyWriteNeedsAWriteTokenAndReadsNeedAToken() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Authenticator auth = Authenticator.builder().token("ci", Role.WRITE, WRITE).token("grafana", Role.READ, READ)
        .meterRegistry(registry).build();
    try (ApiFixture f = fixture(auth)) {
      String[][] writes = {{"POST", TASKS, "{\"name\":\"a\"}"}, {"PUT", TASKS + "/a", "{\"args\":{}}"},
          {"DELETE", TASKS + "/a", null}};
      for (String[] w : writes) {
        Res none = f.call(w[0], w[1], w[2], null);
        assertThat(none.status()).as(w[0] + " without a token: " + none.body()).isEqualTo(401);
        assertThat(none.error()).isEqualTo("authorization: writes need the header 'Authorization: Bearer <token>'");
        assertThat(none.raw().headers().firstValue("WWW-Authenticate")).isPresent();
        assertThat(f.call(w[0], w[1], w[2], "nope").status()).as(w[0] + " unknown token").isEqualTo(401);
        Res ro = f.call(w[0], w[1], w[2], READ);
        assertThat(ro.status()).as(w[0] + " with a read token: " + ro.body()).isEqualTo(403);
        assertThat(ro.error()).isEqualTo("authorization: token 'grafana' has role read; writes need role write");
      }
      assertThat(f.store.taskSpecs("p").get("a")).as("nothing written").isEmpty();

      for (String path : List.of("/api/v1/pools", "/api/v1/pools/p/members", TASKS, TASKS + "/a")) {
        Res r = f.call("GET", path, null, null);
        assertThat(r.status()).as("GET " + path + " without a token").isEqualTo(401);
        assertThat(r.error()).isEqualTo("authorization: reads need the header 'Authorization: Bearer <token>'");
        assertThat(f.call("GET", path, null, "nope").status()).isEqualTo(401);
      }
      assertThat(f.call("GET", "/api/v1/events", null, null).status()).as("the event history").isEqualTo(401);
      assertThat(f.call("GET", "/api/v1/events/stream", null, "nope").status()).as("its stream").isEqualTo(401);
      assertThat(f.call("GET", "/api/v1/events", null, READ).status()).isEqualTo(200);
      assertThat(f.call("GET", "/api/v1/openapi.json", null, null).status()).as("the document stays open")
          .isEqualTo(200);
      assertThat(f.call("GET", TASKS, null, READ).status()).isEqualTo(200);
      assertThat(f.call("GET", TASKS, null, WRITE).status()).as("write implies read").isEqualTo(200);

      assertThat(f.call("POST", TASKS, "{\"name\":\"a\"}", WRITE).status()).isEqualTo(201);
      assertThat(f.call("PUT", TASKS + "/a", "{\"args\":{\"x\":1}}", WRITE).status()).isEqualTo(200);
      assertThat(f.call("DELETE", TASKS + "/a", null, WRITE).status()).isEqualTo(202);
    }
    assertThat(registry.get(Authenticator.REFUSED_METRIC).tag("channel", "rest").tag("reason", "role").counter()
        .count()).isEqualTo(3);
    assertThat(registry.get(Authenticator.REFUSED_METRIC).tag("channel", "rest").tag("reason", "missing").counter()
        .count()).isEqualTo(8);
  }

  @Test
  void aWriteTokenAloneLeavesReadsOpen() {
    try (ApiFixture f = fixture(Authenticator.builder().token("ci", Role.WRITE, WRITE).build())) {
      assertThat(f.call("GET", TASKS, null, null).status()).isEqualTo(200);
      assertThat(f.call("POST", TASKS, "{\"name\":\"a\"}", null).status()).isEqualTo(401);
    }
  }

  @Test
  void aTokenAddedToTheFileIsAcceptedAndARemovedOneRefusedWithoutARestart() throws Exception {
    Path p = dir.resolve("tokens");
    Files.writeString(p, "ci write tok-ci\n");
    try (ApiFixture f = fixture(Authenticator.builder().tokens(TokenFile.load(p, Duration.ZERO)).build())) {
      assertThat(f.call("POST", TASKS, "{\"name\":\"a\"}", "tok-ci").status()).isEqualTo(201);
      assertThat(f.call("POST", TASKS, "{\"name\":\"b\"}", "tok-new").status()).isEqualTo(401);
      Files.writeString(p, "new write tok-new\n");
      assertThat(f.call("POST", TASKS, "{\"name\":\"b\"}", "tok-new").status()).isEqualTo(201);
      assertThat(f.call("POST", TASKS, "{\"name\":\"c\"}", "tok-ci").status()).as("revoked").isEqualTo(401);
    }
  }
}
