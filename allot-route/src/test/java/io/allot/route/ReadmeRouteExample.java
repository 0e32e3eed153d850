package io.allot.route;

import static io.allot.route.Loopback.WHO;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.memory.MemoryStore;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README's routing example, compiled and run on the memory store (README lines stand here verbatim). */
class ReadmeRouteExample {

  static ManagedChannel channel(Store store) {
    ManagedChannel ch = NettyChannelBuilder.forTarget("allot://services") // ?table=<tableKey>, default sys-matching-table
        .setNameResolverArg(AllotNameResolverProvider.STORE, store)       // or STORE_URI, -Dallot.store, $ALLOT_STORE
        .defaultServiceConfig(Map.of("loadBalancingConfig",
            List.of(Map.of("allot_owner", Map.of("fallback", "consistent_hash")))))
        .intercept(new OwnerRetryInterceptor())                           // one re-route when a member says "not mine"
        .usePlaintext().build();
    return ch;
  }

  static String ask(ManagedChannel ch) {
    String answer = ClientCalls.blockingUnaryCall(ch, WHO,                // WHO: your method's descriptor
        CallOptions.DEFAULT.withOption(AllotRouting.KEY, "unit-42"), "hello"); // or the metadata header allot-key
    return answer;
  }

  @Test
  void runs() {
    try (Store store = new MemoryStore(); Loopback fleet = new Loopback(store, "services")) {
      Loopback.Member a = fleet.start(MemberMeta.DEFAULT);
      Loopback.Member b = fleet.start(MemberMeta.DEFAULT);
      OwnerRoutingTest.publish(store, "sys-matching-table", "services", Map.of("unit-42", b.id, "unit-7", a.id));
      ManagedChannel ch = channel(store);
      try {
        // until the owner's connection is READY a call goes to the fallback (documented); then always to the owner
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> ask(ch).equals(b.id));
        for (int i = 0; i < 20; i++) {
          assertThat(ask(ch)).isEqualTo(b.id);
        }
      } finally {
        ch.shutdownNow();
      }
    }
  }
}
