package io.allot.server.distributor;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.core.assign.Assigners;
import io.allot.core.model.Member;
import io.allot.server.ping.Pinger;
import io.allot.store.MemberMeta;
import io.allot.store.Membership;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.TestServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On Redis and PostgreSQL: a member's registration, affinity change and deregistration reach the published table at
 * once, by the store's announcement, without waiting for the poll (30 s here, longer than every wait below); and a
 * newly elected distributor continues from the table in force (a stateful strategy moves no unit on a leader change).
 */
class DistributorMemberChangesTest {
  static final Duration POLL = Duration.ofSeconds(30);

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"redis", "postgresql"})
  void memberChangesArePublishedWithoutWaitingForThePoll(String kind) throws Exception {
    PostgresSchema schema = kind.equals("redis") ? null : PostgresSchema.create("allot_test");
    String uri = kind.equals("redis") ? TestServers.redisUri() : schema.uri();
    String p = "test-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    String pool = p + "services";
    String units = p + "units";
    String table = p + "table";
    try (Store store = Stores.open(uri)) {
      Membership members = store.membership(pool);
      String a = "10.0.0.1:7001";
      String b = "10.0.0.2:7002";
      long sa = members.register(a, MemberMeta.DEFAULT, Duration.ofMinutes(2));
      List<String> names = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        names.add("unit-" + i);
      }
      store.seedKeys().replaceList(units, names);
      DistributorSettings settings = new DistributorSettings(List.of(pool), units, table, POLL, Duration.ofMillis(500),
          3, false, Duration.ofMinutes(2), "balanced", Pinger.Mode.AUTO);
      String before;
      try (DistributorServer server = new DistributorServer(store, settings, new SimpleMeterRegistry(), null).start()) {
        await(() -> count(store, table, a) == 12);
        long sb = members.register(b, MemberMeta.DEFAULT, Duration.ofMinutes(2));
        await(() -> count(store, table, b) > 0);
        members.update(b, sb, MemberMeta.DEFAULT.withAffinity(0));
        await(() -> count(store, table, b) == 0 && count(store, table, a) == 12);
        members.update(b, sb, MemberMeta.DEFAULT);
        await(() -> count(store, table, b) > 0);
        members.deregister(b, sb);
        await(() -> count(store, table, b) < 0 && count(store, table, a) == 12);
        sb = members.register(b, MemberMeta.DEFAULT, Duration.ofMinutes(2));
        await(() -> count(store, table, b) > 0);
        String c = "10.0.0.3:7003";
        members.register(c, MemberMeta.DEFAULT, Duration.ofMinutes(2));
        await(() -> count(store, table, c) > 0);
        before = sortedTable(store, table);
        String fromNothing = new java.util.TreeMap<>(Assigners.byName("balanced")
            .assign(List.of(Member.of(a), Member.of(b), Member.of(c)), names).toDistributionHash()).toString();
        assertThat(fromNothing).as("precondition: the table in force is not what balanced computes from nothing")
            .isNotEqualTo(before);
      }
      // the leader released its lease on close: a new one is elected and must publish the same table
      long epoch = store.tables().epoch(table);
      try (DistributorServer server = new DistributorServer(store, settings, new SimpleMeterRegistry(), null).start()) {
        await(() -> store.tables().epoch(table) > epoch);
        assertThat(sortedTable(store, table)).isEqualTo(before);
      }
      members.deregister(a, sa);
    } finally {
      if (schema != null) {
        schema.close();
      }
    }
  }

  private static void await(java.util.concurrent.Callable<Boolean> condition) {
    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(condition);
  }

  /** {@code member}'s unit count in the published table; -1 if it has no entry. */
  static int count(Store store, String table, String member) {
    return store.tables().read(table, member).map(v -> v.isEmpty() ? 0 : v.split(",").length).orElse(-1);
  }

  static String sortedTable(Store store, String table) {
    return new java.util.TreeMap<>(store.tables().read(table)).toString();
  }
}
