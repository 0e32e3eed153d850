package io.allot.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.MemberMeta;
import io.allot.testkit.TestServers;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each policy's distribution, through real channels to real Netty servers, membership in real Redis. */
class PoliciesTest {
  static Store store;
  Loopback fleet;

  @BeforeAll
  static void open() {
    store = Stores.open(TestServers.redisUri());
  }

  @AfterAll
  static void closeStore() {
    store.close();
    StoreKind.cleanRedis();
  }

  @BeforeEach
  void newPool() {
    fleet = new Loopback(store, StoreKind.pool());
  }

  @AfterEach
  void stop() {
    LiveWeights.set(store, fleet.pool, Map.of());
    fleet.close();
  }

  private Map<String, Long> served() {
    return fleet.members.stream().collect(Collectors.toMap(m -> m.id, m -> m.served.get()));
  }

  private List<String> ids() {
    return fleet.members.stream().map(m -> m.id).toList();
  }

  @Test
  void weightedRoundRobinGivesEachMemberItsWeightExactly() {
    Loopback.Member a = fleet.start(MemberMeta.DEFAULT.withAffinity(1));
    Loopback.Member b = fleet.start(MemberMeta.DEFAULT.withAffinity(2));
    Loopback.Member c = fleet.start(MemberMeta.DEFAULT.withAffinity(3));
    ManagedChannel ch = fleet.channel("allot_weighted_round_robin", Map.of(), null);
    Loopback.warm(ch, ids());
    fleet.resetCounts();
    for (int i = 0; i < 600; i++) {
      Loopback.who(ch, CallOptions.DEFAULT);
    }
    assertThat(served()).containsEntry(a.id, 100L).containsEntry(b.id, 200L).containsEntry(c.id, 300L);
  }

  @Test
  void canarySplitsByVersionAndLiveWeightsOverrideTheConfig() {
    Loopback.Member v1a = fleet.start(MemberMeta.DEFAULT.with("version", "v1"));
    Loopback.Member v1b = fleet.start(MemberMeta.DEFAULT.with("version", "v1"));
    Loopback.Member v2 = fleet.start(MemberMeta.DEFAULT.with("version", "v2"));
    ManagedChannel ch = fleet.channel("allot_canary", Map.of("weights", Map.of("v1", 90.0, "v2", 10.0)), null);
    Loopback.warm(ch, List.of(v1a.id, v2.id));
    Loopback.warm(ch, List.of(v1b.id));
    fleet.resetCounts();
    for (int i = 0; i < 1000; i++) {
      Loopback.who(ch, CallOptions.DEFAULT);
    }
    assertThat(v2.served.get()).isEqualTo(100);
    assertThat(v1a.served.get() + v1b.served.get()).isEqualTo(900);
    assertThat(Math.abs(v1a.served.get() - v1b.served.get())).isLessThanOrEqualTo(1);

    LiveWeights.set(store, fleet.pool, Map.of("v1", 50, "v2", 50));
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      fleet.resetCounts();
      for (int i = 0; i < 20; i++) {
        Loopback.who(ch, CallOptions.DEFAULT);
      }
      return v2.served.get() == 10;
    });
    fleet.resetCounts();
    for (int i = 0; i < 1000; i++) {
      Loopback.who(ch, CallOptions.DEFAULT);
    }
    assertThat(v2.served.get()).isEqualTo(500);
  }

  @Test
  void stickyCanaryKeepsAKeyOnOneMemberAndSplitsKeysByWeight() {
    fleet.start(MemberMeta.DEFAULT.with("version", "v1"));
    fleet.start(MemberMeta.DEFAULT.with("version", "v1"));
    Loopback.Member v2 = fleet.start(MemberMeta.DEFAULT.with("version", "v2"));
    ManagedChannel ch = fleet.channel("allot_canary",
        Map.of("weights", Map.of("v1", 80.0, "v2", 20.0), "sticky", true), null);
    Loopback.warm(ch, ids());
    int onV2 = 0;
    for (int k = 0; k < 400; k++) {
      CallOptions o = CallOptions.DEFAULT.withOption(AllotRouting.KEY, "key-" + k);
      String first = Loopback.who(ch, o);
      assertThat(Loopback.who(ch, o)).isEqualTo(first);
      assertThat(Loopback.who(ch, o)).isEqualTo(first);
      if (first.equals(v2.id)) {
        onV2++;
      }
    }
    assertThat(onV2).isBetween(50, 110); // 20 % of 400 = 80, ± 3.75 sigma
  }

  @Test
  void leastRequestAvoidsTheSlowMember() throws Exception {
    Loopback.Member slow = fleet.start(MemberMeta.DEFAULT);
    fleet.start(MemberMeta.DEFAULT);
    fleet.start(MemberMeta.DEFAULT);
    ManagedChannel ch = fleet.channel("allot_least_request", Map.of("choiceCount", 2.0), null);
    Loopback.warm(ch, ids());
    fleet.resetCounts();
    slow.delayMillis = 100;
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        fs.add(pool.submit(() -> {
          for (int i = 0; i < 100; i++) {
            Loopback.who(ch, CallOptions.DEFAULT);
          }
        }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    long total = fleet.members.stream().mapToLong(m -> m.served.get()).sum();
    System.out.printf("least request: slow member got %d of %d calls (round robin: a third)%n", slow.served.get(),
        total);
    assertThat(slow.served.get()).isLessThan(total / 10);
  }

  @Test
  void consistentHashKeepsKeysAndMovesOnlyTheKeysOfAMemberThatLeaves() {
    fleet.start(MemberMeta.DEFAULT);
    fleet.start(MemberMeta.DEFAULT);
    Loopback.Member leaving = fleet.start(MemberMeta.DEFAULT);
    fleet.start(MemberMeta.DEFAULT);
    ManagedChannel ch = fleet.channel("allot_consistent_hash", Map.of(), null);
    Loopback.warm(ch, ids());
    Map<String, String> before = new HashMap<>();
    for (int k = 0; k < 300; k++) {
      CallOptions o = CallOptions.DEFAULT.withOption(AllotRouting.KEY, "k" + k);
      before.put("k" + k, Loopback.who(ch, o));
      assertThat(Loopback.who(ch, o)).isEqualTo(before.get("k" + k));
    }
    assertThat(before.values().stream().distinct().count()).isEqualTo(4);
    // what allot route prints as the fallback is what the picker picks
    Map<String, io.allot.store.MemberMeta> live = LiveMembers.read(store, fleet.pool).members();
    before.forEach((k, m) -> assertThat(OwnerLookup.consistentHash(live, k)).as(k).isEqualTo(m));
    leaving.stop();
    await().atMost(Duration.ofSeconds(30)).until(() -> before.entrySet().stream()
        .filter(e -> e.getValue().equals(leaving.id)).allMatch(e ->
            !Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, e.getKey())).equals(leaving.id)));
    for (Map.Entry<String, String> e : before.entrySet()) {
      String now = Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, e.getKey()));
      if (!e.getValue().equals(leaving.id)) {
        assertThat(now).as(e.getKey()).isEqualTo(e.getValue());
      }
    }
  }

  @Test
  void consistentHashFollowsMemberWeights() {
    Loopback.Member heavy = fleet.start(MemberMeta.DEFAULT.withAffinity(3));
    fleet.start(MemberMeta.DEFAULT.withAffinity(1));
    ManagedChannel ch = fleet.channel("allot_consistent_hash", Map.of(), null);
    Loopback.warm(ch, ids());
    fleet.resetCounts();
    for (int k = 0; k < 2000; k++) {
      Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, "w" + k));
    }
    assertThat(heavy.served.get()).isBetween(1380L, 1620L); // 3/4 of 2000 = 1500, ± 5.5 sigma
  }

  @Test
  void theHeaderCarriesTheKeyToo() {
    fleet.start(MemberMeta.DEFAULT);
    fleet.start(MemberMeta.DEFAULT);
    fleet.start(MemberMeta.DEFAULT);
    ManagedChannel ch = fleet.channel("allot_consistent_hash", Map.of(), null);
    Loopback.warm(ch, ids());
    for (int k = 0; k < 50; k++) {
      io.grpc.Metadata h = new io.grpc.Metadata();
      h.put(AllotRouting.KEY_HEADER, "k" + k);
      io.grpc.Channel withHeader = io.grpc.ClientInterceptors.intercept(ch,
          io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(h));
      String viaHeader = ClientCalls.blockingUnaryCall(withHeader, Loopback.WHO, CallOptions.DEFAULT, "x");
      assertThat(Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, "k" + k))).isEqualTo(viaHeader);
    }
  }
}
