package io.allot.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.MemberMeta;
import io.allot.testkit.TestServers;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What goes wrong, and how it is reported: a member process killed with SIGKILL leaves the client's view at its
 * lease end; bad service configs fail at channel build naming the field; bad targets and a missing store fail the
 * calls with a status naming them.
 */
class FailuresTest {
  @org.junit.jupiter.api.AfterEach
  void theResolverThrewNothing() {
    ResolverTest.assertNoSyncErrors();
  }


  @Test
  void aMemberKilledWithSigkillLeavesTheClientsViewAtItsLeaseEnd() throws Exception {
    try (StoreKind sk = StoreKind.open("redis"); Loopback fleet = new Loopback(sk.store, StoreKind.pool())) {
      Loopback.Member local = fleet.start(MemberMeta.DEFAULT);
      String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process child = new ProcessBuilder(javaBin, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp",
          System.getProperty("java.class.path"), ChildMember.class.getName(), sk.uri, fleet.pool, "1000")
          .redirectErrorStream(true).start();
      try {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("READY ")) {
          // the child's log
        }
        assertThat(line).as("child member started").isNotNull();
        String childId = line.substring("READY ".length());
        ManagedChannel ch = fleet.channel("round_robin", Map.of(), null);
        Loopback.warm(ch, List.of(local.id, childId));
        try (ResolverTest.Recorder rec =
            ResolverTest.Recorder.resolving("allot://" + fleet.pool, ResolverTest.args(sk.store))) {
          rec.seen(0, java.util.Set.of(local.id, childId));
          long leaseEnd = sk.store.membership(fleet.pool).members().get(childId).leaseUntilMillis();
          int from = rec.updates.size();
          long killedAt = System.currentTimeMillis();
          child.destroyForcibly(); // SIGKILL: no deregistration, no goodbye
          child.waitFor(5, TimeUnit.SECONDS);
          long seen = rec.seen(from, java.util.Set.of(local.id));
          long seenAt = System.currentTimeMillis() - (System.nanoTime() - seen) / 1_000_000;
          long margin = sk.store.safety().clockMargin().toMillis();
          System.out.printf("SIGKILL: member dropped %d ms after the kill (lease ≤ 1000 ms + margin %d ms; "
              + "%d ms after its last lease end + margin)%n", seenAt - killedAt, margin, seenAt - leaseEnd - margin);
          assertThat(seenAt - killedAt).isLessThan(1000 + margin + 500);
          // calls keep working, on the member that is left
          for (int i = 0; i < 10; i++) {
            assertThat(Loopback.who(ch, CallOptions.DEFAULT)).isEqualTo(local.id);
          }
        }
      } finally {
        child.destroyForcibly();
      }
    }
  }

  private static ManagedChannel channel(String target, Map<String, ?> serviceConfig) {
    return NettyChannelBuilder.forTarget(target).usePlaintext()
        .setNameResolverArg(AllotNameResolverProvider.STORE_URI, TestServers.redisUri())
        .defaultServiceConfig(serviceConfig).build();
  }

  private static Map<String, ?> lb(String policy, Map<String, ?> config) {
    return Map.of("loadBalancingConfig", List.of(Map.of(policy, config)));
  }

  @Test
  void badServiceConfigsFailAtChannelBuildNamingTheField() {
    assertThatThrownBy(() -> channel("allot://p", lb("allot_nosuch", Map.of())))
        .hasMessageContaining("allot_nosuch");
    assertThatThrownBy(() -> channel("allot://p", lb("allot_canary", Map.of("weights", Map.of("v1", -5.0)))))
        .hasMessageContaining("allot_canary").hasMessageContaining("weights.v1").hasMessageContaining("-5");
    assertThatThrownBy(() -> channel("allot://p", lb("allot_canary", Map.of("weights", "v1=90"))))
        .hasMessageContaining("'weights'").hasMessageContaining("object of version to weight");
    assertThatThrownBy(() -> channel("allot://p", lb("allot_canary", Map.of("weights", Map.of("v1", 0.0)))))
        .hasMessageContaining("at least one weight");
    assertThatThrownBy(() -> channel("allot://p", lb("allot_canary", Map.of("weights", Map.of("v1", 1.5)))))
        .hasMessageContaining("weights.v1").hasMessageContaining("integer");
    assertThatThrownBy(() -> channel("allot://p", lb("allot_least_request", Map.of("choices", 3.0))))
        .hasMessageContaining("'choices'").hasMessageContaining("unknown field").hasMessageContaining("choiceCount");
    assertThatThrownBy(() -> channel("allot://p", lb("allot_least_request", Map.of("choiceCount", 1.0))))
        .hasMessageContaining("choiceCount").hasMessageContaining("2..10");
    assertThatThrownBy(() -> channel("allot://p", lb("allot_owner", Map.of("fallback", "random"))))
        .hasMessageContaining("'fallback'").hasMessageContaining("\"random\"").hasMessageContaining("round_robin");
    assertThatThrownBy(() -> channel("allot://p", lb("allot_canary", Map.of("sticky", "yes"))))
        .hasMessageContaining("'sticky'").hasMessageContaining("true or false");
    channel("allot://p", lb("allot_owner", Map.of("fallback", "least_request"))).shutdownNow(); // a good one builds
  }

  private static Status firstCallStatus(ManagedChannel ch) {
    try {
      // the deadline covers the resolver's start, which opens a store client from its URI: a cold Lettuce client took
      // over 5 s on a loaded 2-core machine (clean-clone CI: "Deadline exceeded ... waiting for name_resolver"); the
      // test checks what the failure says, not how fast it comes
      Loopback.who(ch, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
      throw new AssertionError("call succeeded");
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    } finally {
      ch.shutdownNow();
    }
  }

  @Test
  void badTargetsAndAMissingStoreFailTheCallsNamingThem() {
    Status s = firstCallStatus(channel("allot:///", lb("allot_weighted_round_robin", Map.of())));
    assertThat(s.getDescription()).contains("allot:///").contains("names no pool");
    s = firstCallStatus(channel("allot://pool/extra", lb("allot_weighted_round_robin", Map.of())));
    assertThat(s.getDescription()).contains("allot://pool/extra").contains("path");
    s = firstCallStatus(channel("allot://pool?tabel=x", lb("allot_weighted_round_robin", Map.of())));
    assertThat(s.getDescription()).contains("unknown parameter 'tabel'");
    s = firstCallStatus(channel("allot://no-such-pool-" + System.nanoTime(), lb("allot_owner", Map.of())));
    assertThat(s.getDescription()).contains("no-such-pool-").contains("unknown");
    ManagedChannel noStore = NettyChannelBuilder.forTarget("allot://p").usePlaintext().build();
    s = firstCallStatus(noStore);
    assertThat(s.getDescription()).contains("allot://p").contains("has no store").contains("ALLOT_STORE");
    ManagedChannel badStore = NettyChannelBuilder.forTarget("allot://p").usePlaintext()
        .setNameResolverArg(AllotNameResolverProvider.STORE_URI, "nosuch://x").build();
    s = firstCallStatus(badStore);
    assertThat(s.getDescription()).contains("allot://p").contains("cannot open store").contains("nosuch://x");
  }

  @Test
  void smoothWeightedRoundRobinHasNoBursts() {
    int[] seq = Pickers.Cycle.cycle(new int[] {5, 1, 1});
    assertThat(seq).containsExactly(0, 0, 1, 0, 2, 0, 0);
    int[] big = Pickers.Cycle.cycle(new int[] {300, 200, 100});
    assertThat(big).hasSize(6); // divided by the gcd
    int[] counts = new int[3];
    for (int i : Pickers.Cycle.cycle(new int[] {7, 3, 0})) {
      counts[i]++;
    }
    assertThat(counts).containsExactly(7, 3, 0);
    assertThat(Pickers.Cycle.cycle(new int[] {0, 0})).containsExactly(0, 1);
    // no bursts: after every step, each backend's turns so far are within 1 of its exact share
    java.util.Random rnd = new java.util.Random(7);
    for (int round = 0; round < 300; round++) {
      int[] w = rnd.ints(1 + rnd.nextInt(6), 0, 21).toArray();
      int total = java.util.Arrays.stream(w).sum();
      if (total == 0) {
        continue;
      }
      int[] s = Pickers.Cycle.cycle(w);
      int[] seen = new int[w.length];
      for (int i = 0; i < s.length; i++) {
        seen[s[i]]++;
        for (int b = 0; b < w.length; b++) {
          double exact = (double) (i + 1) * w[b] / total;
          assertThat(Math.abs(seen[b] - exact)).as("weights %s step %d backend %d", java.util.Arrays.toString(w), i, b)
              .isLessThanOrEqualTo(1.0);
        }
      }
    }
  }

  @Test
  void aPoolIsUnknownUntilAMemberJoinsAndFailsCallsOnceTheLastLeaves() {
    try (StoreKind sk = StoreKind.open("redis"); Loopback fleet = new Loopback(sk.store, StoreKind.pool())) {
      ManagedChannel ch = fleet.channel("allot_weighted_round_robin", Map.of(), null);
      Status s = firstCallStatus(ch);
      assertThat(s.getDescription()).contains(fleet.pool);
      ManagedChannel ch2 = fleet.channel("allot_weighted_round_robin", Map.of(), null);
      Loopback.Member m = fleet.start(MemberMeta.DEFAULT);
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
          .until(() -> Loopback.who(ch2, CallOptions.DEFAULT).equals(m.id));
      // the last member leaves (its server keeps running): calls fail at once, naming the cause
      m.deregister();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
            () -> Loopback.who(ch2, CallOptions.DEFAULT));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(e.getStatus().getDescription()).contains("no live member").contains(fleet.pool);
      });
    }
  }
}
