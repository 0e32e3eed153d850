package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.route.LiveWeights;
import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.Tables;
import io.allot.testkit.PostgresSchema;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** {@code allot route} and {@code allot route weights} against PostgreSQL (a schema of the test's own). */
class RouteCommandTest {
  @AutoClose // drops the schema after each test
  private final PostgresSchema schema = PostgresSchema.create("allot_rc");

  @Test
  void printsTheOwnerOrTheFallbackMarkedAsSuch() {
    try (Store s = Stores.open(schema.uri())) {
      s.membership("svc").register("127.0.0.1:7001", MemberMeta.DEFAULT, Duration.ofMinutes(1));
      s.membership("svc").register("127.0.0.1:7002", MemberMeta.DEFAULT, Duration.ofMinutes(1));
      Lease lease = s.leadership().tryAcquire(Tables.leaseName("sys-matching-table", "svc"), "t",
          Duration.ofSeconds(10)).orElseThrow();
      s.tables().publish(lease, "sys-matching-table", "svc",
          Map.of("127.0.0.1:7001", "a,b", "127.0.0.1:9999", "gone"));
    }
    CliRun r = CliRun.of("route", "-store", schema.uri(), "--pool", "svc", "--key", "b");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("b -> 127.0.0.1:7001 (owner in table sys-matching-table epoch");

    r = CliRun.of("route", "-store", schema.uri(), "--pool", "svc", "--key", "zzz");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).containsPattern("zzz -> 127\\.0\\.0\\.1:700[12] \\(fallback: no owner in table")
        .contains("consistent hash over 2 live members");

    r = CliRun.of("route", "-store", schema.uri(), "--pool", "svc", "--key", "gone");
    assertThat(r.out()).contains("fallback: owner 127.0.0.1:9999").contains("is not live");

    r = CliRun.of("route", "-store", schema.uri(), "--pool", "nosuch", "--key", "k");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("pool 'nosuch' is unknown");

    r = CliRun.of("route", "-store", schema.uri(), "--pool", "svc");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--key is required");
  }

  @Test
  void weightsAreSetReadAndCleared() {
    CliRun r = CliRun.of("route", "weights", "-store", schema.uri(), "--pool", "svc", "v1=90", "v2=10");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("live weights of pool svc: v1=90 v2=10 (revision 1)");
    try (Store s = Stores.open(schema.uri())) {
      assertThat(LiveWeights.read(s, "svc")).isEqualTo(Map.of("v1", 90, "v2", 10));
    }
    r = CliRun.of("route", "weights", "-store", schema.uri(), "--pool", "svc");
    assertThat(r.out()).contains("live weights of pool svc: v1=90 v2=10");
    r = CliRun.of("route", "weights", "-store", schema.uri(), "--pool", "svc", "--clear");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("cleared the live weights of pool svc (revision 2)");
    try (Store s = Stores.open(schema.uri())) {
      assertThat(LiveWeights.read(s, "svc")).isEmpty();
    }
    r = CliRun.of("route", "weights", "-store", schema.uri(), "--pool", "svc", "v1=ninety");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("weight of version 'v1' must be an integer but was 'ninety'");
    r = CliRun.of("route", "weights", "-store", schema.uri(), "--pool", "svc", "v1=-1");
    assertThat(r.err()).contains("must be 0..1000000 but was -1");
    r = CliRun.of("route", "weights", "-store", schema.uri(), "--pool", "svc", "v1");
    assertThat(r.err()).contains("'v1' is not VERSION=WEIGHT");
  }
}
