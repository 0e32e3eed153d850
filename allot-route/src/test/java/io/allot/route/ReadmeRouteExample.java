package io.allot.route;

import static io.allot.route.Loopback.WHO;
import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.memory.MemoryStore;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README's routing example, compiled and run on the memory store (README lines stand here verbatim). */
class ReadmeRouteExample {

  static String callTheOwner(Store store) {
    ManagedChannel ch = NettyChannelBuilder.forTarget("allot://services") // ?table=<tableKey>, default sys-matching-table
        .setNameResolverArg(AllotNameResolverProvider.STORE, store)       // or STORE_URI, -Dallot.store, $ALLOT_STORE
        .defaultServiceConfig(Map.of("loadBalancingConfig",
            List.of(Map.of("allot_owner", Map.of("fallback", "consistent_hash")))))
        .intercept(new OwnerRetryInterceptor())                           // one re-route when a member says "not mine"
        .usePlaintext().build();
    String answer = ClientCalls.blockingUnaryCall(ch, WHO,                // WHO: your method's descriptor
        CallOptions.DEFAULT.withOption(AllotRouting.KEY, "unit-42").withWaitForReady(), "hello"); // or header allot-key
    ch.shutdownNow();
    return answer;
  }

  @Test
  void runs() {
    try (Store store = new MemoryStore(); Loopback fleet = new Loopback(store, "services")) {
      Loopback.Member a = fleet.start(MemberMeta.DEFAULT);
      Loopback.Member b = fleet.start(MemberMeta.DEFAULT);
      OwnerRoutingTest.publish(store, "sys-matching-table", "services", Map.of("unit-42", b.id, "unit-7", a.id));
      assertThat(callTheOwner(store)).isEqualTo(b.id);
    }
  }
}
