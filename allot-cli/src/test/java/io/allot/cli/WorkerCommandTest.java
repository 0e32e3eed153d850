package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.Store;
import io.allot.store.Stores;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * `allot worker` rejects bad configuration with exit code 2 and a message naming the input, and publishes its
 * metadata.
 */
class WorkerCommandTest {
  @Test
  void groupAndPortAreRequired() {
    CliRun r = CliRun.of("worker", "--port", "7001");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--pool");
    r = CliRun.of("worker", "--pool", "g");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--port");
  }

  @Test
  void badValuesAreNamed() {
    assertThat(CliRun.of("worker", "--pool", "g", "--port", "70000").err()).contains("-port: 70000 is not a port");
    assertThat(CliRun.of("worker", "--pool", "g", "--port", "1", "--affinity", "-1").err()).contains("-affinity");
    assertThat(CliRun.of("worker", "--pool", "g", "--port", "1", "--stop-delay", "soon").err()).contains("-stop-delay");
    for (String memory : new String[] {"memory", "memory:"}) {
      CliRun r = CliRun.of("worker", "--pool", "g", "--port", "1", "-store", memory);
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err()).contains("-store memory: a worker must share its store");
    }
    CliRun r = CliRun.of("worker", "--pool", "g", "--port", "1", "-store", "nosql");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("store 'nosql' is not a URI");
  }

  @Test
  void inconsistentLeaseSettingsAreRejectedBeforeJoining() {
    CliRun r = CliRun.of("worker", "--pool", "g", "--port", "1", "--lease-ttl", "1s", "--fence-margin", "2s");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("fenceMargin");
  }

  @Test
  void badLabelsAreNamed() {
    CliRun r = CliRun.of("worker", "--pool", "g", "--port", "0", "--label", "novalue");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--label").contains("novalue");
    r = CliRun.of("worker", "--pool", "g", "--port", "0", "-store", "redis://127.0.0.1:6379", "--label", "bad name=x");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("'bad name'");
  }

  @Test
  void versionZoneAndLabelsArePublishedAsMemberMetadata() throws Exception {
    String pool = "worker-meta-" + UUID.randomUUID().toString().substring(0, 8);
    Process p = ServerProcessTest.allot("worker", "--pool", pool, "--port", "0", "-store", "redis://127.0.0.1:6379",
        "--member-version", "1.2.3", "--zone", "eu-1", "--label", "team=core", "-label", "tier=gold", "--affinity", "2")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try (Store store = Stores.open("redis://127.0.0.1:6379")) {
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !store.membership(pool).members().isEmpty());
      MemberRecord member = store.membership(pool).members().values().iterator().next();
      assertThat(member.meta()).isEqualTo(new MemberMeta(2, Integer.MAX_VALUE,
          Map.of("version", "1.2.3", "zone", "eu-1", "team", "core", "tier", "gold")));
      p.destroy(); // SIGTERM: the worker leaves
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(store.membership(pool).members()).isEmpty();
    } finally {
      p.destroyForcibly();
    }
  }
}
