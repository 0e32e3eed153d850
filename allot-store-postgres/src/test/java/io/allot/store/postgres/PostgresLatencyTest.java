package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.Tables;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Prints the latency of the hot operations, one client, no contention (a smoke measurement, not a benchmark: the
 * only assertion is a generous sanity bound so a pathological regression, e.g. a lock wait per call, shows up).
 */
class PostgresLatencyTest {
  private static final TestSchema SCHEMA = TestSchema.random();
  private static PostgresStore store;

  @BeforeAll
  static void connect() {
    store = SCHEMA.connect();
  }

  @AfterAll
  static void disconnect() {
    if (store != null) {
      store.close();
    }
    SCHEMA.close();
  }

  @Test
  void hotPathLatencies() {
    String pool = "services";
    long session = store.membership(pool).register("m1", MemberMeta.of(1, 1000), Duration.ofSeconds(60));
    Lease lease = store.leadership().tryAcquire(Tables.leaseName("table", "g"), "d1", Duration.ofSeconds(60))
        .orElseThrow();
    Map<String, String> table = new LinkedHashMap<>();
    for (int i = 0; i < 100; i++) {
      table.put("10.0.0." + i + ":8080", "u" + i + ",u" + (i + 100));
    }
    int n = 300;
    double claimP50 = measure("claim (new unit)", n, i -> store.ownership(pool).claim("unit-" + i, "m1", session));
    measure("claim (repeated)", n, i -> store.ownership(pool).claim("unit-" + (i % 10), "m1", session));
    measure("validToken", n, i -> store.ownership(pool).validToken("unit-1", "m1", session, 1));
    measure("renewMember", n, i -> store.membership(pool).renew("m1", session, Duration.ofSeconds(60)));
    measure("releaseUnit", n, i -> store.ownership(pool).release("unit-" + i, "m1", 1));
    double publishP50 = measure("publish (100 fields)", n, i -> {
      table.put("10.0.0.0:8080", "u0," + i);
      store.tables().publish(lease, "table", "g", table);
    });
    measure("epoch", n, i -> store.tables().epoch("table"));
    measure("hash (100 fields)", n, i -> store.seedKeys().hash("table"));
    assertThat(claimP50).isLessThan(50);
    assertThat(publishP50).isLessThan(100);
  }

  /** Runs {@code op} n times after a warm-up; prints and returns the median in ms. */
  private static double measure(String what, int n, LongConsumer op) {
    for (int i = 0; i < 50; i++) {
      op.accept(100_000 + i);
    }
    long[] nanos = new long[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      op.accept(i);
      nanos[i] = System.nanoTime() - t0;
    }
    Arrays.sort(nanos);
    double p50 = nanos[n / 2] / 1e6;
    double p99 = nanos[(int) (n * 0.99)] / 1e6;
    System.out.printf("latency %-22s p50 %6.3f ms  p99 %6.3f ms%n", what, p50, p99);
    return p50;
  }
}
