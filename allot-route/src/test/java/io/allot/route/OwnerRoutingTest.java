package io.allot.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.Tables;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@code allot_owner} against a table published in real Redis and PostgreSQL: every key reaches its owner, a stale
 * client is re-routed once by the member's hint, and a key whose owner is down goes to the fallback.
 */
class OwnerRoutingTest {

  /** Publishes {@code owners} (unit to member) as the pool's table, as a distributor would. */
  static long publish(io.allot.store.Store store, String tableKey, String pool, Map<String, String> owners) {
    Map<String, List<String>> byMember = new HashMap<>();
    owners.forEach((u, m) -> byMember.computeIfAbsent(m, x -> new ArrayList<>()).add(u));
    Map<String, String> fields = new HashMap<>();
    byMember.forEach((m, us) -> fields.put(m, String.join(",", us)));
    String name = Tables.leaseName(tableKey, pool);
    Lease lease = store.leadership().tryAcquire(name, "test", Duration.ofSeconds(10)).orElseThrow();
    try {
      return store.tables().publish(lease, tableKey, pool, fields);
    } finally {
      store.leadership().release(lease);
    }
  }

  @OnEachStore
  void everyKeyReachesItsOwnerAndAStaleClientIsReRoutedOnce(String kind) {
    try (StoreKind sk = StoreKind.open(kind); Loopback fleet = new Loopback(sk.store, StoreKind.pool())) {
      String tableKey = "route-table-" + fleet.pool;
      Map<String, String> truth = new ConcurrentHashMap<>(); // unit -> owner, as the members know it
      List<Loopback.Member> ms = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        ms.add(fleet.start(MemberMeta.DEFAULT, Duration.ofSeconds(30), truth::get));
      }
      Map<String, String> owners = new HashMap<>();
      for (int u = 0; u < 200; u++) {
        Loopback.Member m = ms.get(u % 4);
        owners.put("u" + u, m.id);
        m.owned.add("u" + u);
      }
      truth.putAll(owners);
      publish(sk.store, tableKey, fleet.pool, owners);

      OwnerRetryInterceptor retry = new OwnerRetryInterceptor();
      ManagedChannel ch = fleet.channel("allot://" + fleet.pool + "?table=" + tableKey, "allot_owner", Map.of(),
          retry);
      Loopback.warm(ch, ms.stream().map(m -> m.id).toList());
      for (int u = 0; u < 200; u++) {
        String unit = "u" + u;
        assertThat(Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, unit))).as(unit)
            .isEqualTo(owners.get(unit));
      }
      assertThat(retry.reRouted()).isZero();

      // the members hand u0..u49 over (0 -> 1, ...) but no table says so yet: the client's view is stale
      for (int u = 0; u < 50; u++) {
        Loopback.Member from = ms.get(u % 4);
        Loopback.Member to = ms.get((u + 1) % 4);
        from.owned.remove("u" + u);
        to.owned.add("u" + u);
        truth.put("u" + u, to.id);
      }
      for (int u = 0; u < 200; u++) {
        String unit = "u" + u;
        assertThat(Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, unit))).as(unit)
            .isEqualTo(truth.get(unit));
      }
      assertThat(retry.reRouted()).isEqualTo(50);

      // once the table is published, no call needs a second hop
      publish(sk.store, tableKey, fleet.pool, truth);
      // until a call of a moved key is answered by its new owner without a second hop (calls made before the client
      // saw the table are re-routed, so the count is compared per call, not against 50: seen under load)
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        long hops = retry.reRouted();
        return Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, "u0")).equals(truth.get("u0"))
            && retry.reRouted() == hops;
      });
      long before = retry.reRouted();
      for (int u = 0; u < 200; u++) {
        Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, "u" + u));
      }
      assertThat(retry.reRouted()).isEqualTo(before);
    }
  }

  @Test
  void aKeyWhoseOwnerIsDownOrUnknownGoesToTheFallback() {
    try (StoreKind sk = StoreKind.open("redis"); Loopback fleet = new Loopback(sk.store, StoreKind.pool())) {
      String tableKey = "route-table-" + fleet.pool;
      Loopback.Member a = fleet.start(MemberMeta.DEFAULT);
      Loopback.Member b = fleet.start(MemberMeta.DEFAULT);
      Loopback.Member c = fleet.start(MemberMeta.DEFAULT);
      publish(sk.store, tableKey, fleet.pool, Map.of("ua", a.id, "ub", b.id, "uc", c.id));
      ManagedChannel ch = fleet.channel("allot://" + fleet.pool + "?table=" + tableKey, "allot_owner",
          Map.of("fallback", "consistent_hash"), null);
      Loopback.warm(ch, List.of(a.id, b.id, c.id));
      assertThat(Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, "uc"))).isEqualTo(c.id);
      // an unknown key: the fallback (consistent hash: the same member every time)
      String unknown = Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, "nobody-owns-this"));
      for (int i = 0; i < 10; i++) {
        assertThat(Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, "nobody-owns-this")))
            .isEqualTo(unknown);
      }
      // c's server dies; the table still names it: its key goes to the fallback, without an error
      c.server.shutdownNow();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        String got = Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, "uc"));
        assertThat(got).isIn(a.id, b.id);
      });
      for (int i = 0; i < 20; i++) {
        assertThat(Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, "uc"))).isIn(a.id, b.id);
      }
      assertThat(Loopback.who(ch, CallOptions.DEFAULT.withOption(AllotRouting.KEY, "ua"))).isEqualTo(a.id);
    }
  }

  @Test
  void aMemberRefusesAKeyItDoesNotOwnNamingTheOwner() {
    try (StoreKind sk = StoreKind.open("redis"); Loopback fleet = new Loopback(sk.store, StoreKind.pool())) {
      Loopback.Member a = fleet.start(MemberMeta.DEFAULT, Duration.ofSeconds(30), u -> "10.0.0.9:7000");
      ManagedChannel ch = fleet.channel("allot_owner", Map.of(), null); // no re-route interceptor
      io.grpc.Metadata h = new io.grpc.Metadata();
      h.put(AllotRouting.KEY_HEADER, "u1");
      io.grpc.Channel withHeader = io.grpc.ClientInterceptors.intercept(ch,
          io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(h));
      StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
          () -> Loopback.who(withHeader, CallOptions.DEFAULT.withWaitForReady()));
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(e.getStatus().getDescription()).contains("'u1'").contains("10.0.0.9:7000");
      assertThat(e.getTrailers().get(AllotRouting.OWNER_TRAILER)).isEqualTo("10.0.0.9:7000");
      a.owned.add("u1");
      assertThat(Loopback.who(withHeader, CallOptions.DEFAULT)).isEqualTo(a.id);
    }
  }
}
