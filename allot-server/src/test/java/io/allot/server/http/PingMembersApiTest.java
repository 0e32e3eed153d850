package io.allot.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.allot.server.dev.DemoMember;
import io.allot.server.distributor.DistributorServer;
import io.allot.server.distributor.DistributorSettings;
import io.allot.server.ping.Pinger;
import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskService;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 19: {@code /api/v1/pools} said {@code liveMembers: 0} and {@code /members} {@code []} while the table had
 * original-style members (answering pings only) up. A running distributor with two such members: the views show
 * them live, judged by ping, the table shows their units owned; a member stopped turns down in the views.
 */
class PingMembersApiTest {
  static final String POOL = "sys-robots-list";

  @Test
  void theViewsShowTheMembersTheDistributorJudgesByPings() {
    DistributorSettings settings = new DistributorSettings(List.of(POOL), "units", "table", Duration.ofMillis(300),
        Duration.ofSeconds(1), 2, false, Duration.ofMinutes(2), "rendezvous", Pinger.Mode.AUTO);
    List<String> units = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      units.add("unit-" + i);
    }
    try (MemoryStore store = new MemoryStore();
        DemoMember a = new DemoMember(0, true, false).start();
        DemoMember b = new DemoMember(0, true, false).start();
        DistributorServer server = new DistributorServer(store, settings, new SimpleMeterRegistry(), null)) {
      store.seedKeys().replaceList("units", units);
      store.seedKeys().replaceList(POOL, List.of(a.address(), b.address()));
      TaskService tasks = TaskService.forPools(store, "table", List.of(POOL)).withPingVerdicts(server::pingVerdicts);
      ApiHandler api = new ApiHandler(tasks, ApiFixture.TOKEN).withRoutes(ServerRoutes.of(store, tasks, "table",
          "units"));
      try (ApiFixture f = new ApiFixture(api, null)) {
        server.start();
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() ->
            f.get("/api/v1/pools").json().get("pools").get(0).get("liveMembers").asInt() == 2);
        JsonNode members = f.get("/api/v1/pools/" + POOL + "/members").json().get("members");
        assertThat(members).hasSize(2).allSatisfy(m -> {
          assertThat(m.get("judgedBy").asText()).isEqualTo("ping");
          assertThat(m.get("up").asBoolean()).isTrue();
          assertThat(m.get("leaseExpiresAt").isNull()).isTrue();
        });
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
          JsonNode table = f.get("/api/v1/pools/" + POOL + "/table").json();
          assertThat(table.get("units")).hasSize(6)
              .allSatisfy(u -> assertThat(u.get("state").asText()).isEqualTo("owned"));
          assertThat(table.get("members")).hasSize(2)
              .allSatisfy(m -> assertThat(m.get("ideal").asDouble()).isEqualTo(3.0));
        });

        b.stop();
        Awaitility.await().ignoreExceptions().atMost(Duration.ofSeconds(60)).until(() ->
            f.get("/api/v1/pools").json().get("pools").get(0).get("liveMembers").asInt() == 1);
        JsonNode after = f.get("/api/v1/pools/" + POOL + "/members").json().get("members");
        assertThat(after).anySatisfy(m -> {
          assertThat(m.get("id").asText()).isEqualTo(b.address());
          assertThat(m.get("up").asBoolean()).isFalse();
        });
      }
    }
  }
}
