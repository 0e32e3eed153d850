package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.MemberRecord;
import io.allot.store.UnitOwner;
import io.allot.testkit.FakeDistributor;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DividerTest extends WorkerTestBase {

  @Test
  void startsItsUnitsWithTheStoreTokensAndStopsWhatLeavesItsShare() {
    M a = member("A");
    table.publish(a.id(), "u1,u2,u3");

    await().until(() -> a.d().assigned().keySet().equals(java.util.Set.of("u1", "u2", "u3")));
    // the starts are delivered on the event thread after assigned() changed: waited for, not read at once
    await().until(() -> a.r().starts().size() == 3);
    Map<String, UnitOwner> owners = mem.ownership(P).owners();
    assertThat(a.r().starts()).hasSize(3);
    for (UnitStart s : a.r().starts()) {
      assertThat(owners.get(s.unit()).member()).isEqualTo(a.id());
      assertThat(owners.get(s.unit()).token()).isEqualTo(s.token());
      assertThat(a.d().assigned()).containsEntry(s.unit(), s.token());
      assertThat(mem.ownership(P).validToken(s.unit(), a.id(), a.d().session().orElseThrow(), s.token())).isTrue();
    }

    long tokenU2 = a.d().assigned().get("u2");
    table.publish(a.id(), "u1,u3");
    await().until(() -> !mem.ownership(P).owners().containsKey("u2") && !a.d().assigned().containsKey("u2"));
    assertThat(a.r().stops(StopReason.REASSIGNED)).containsExactly(new UnitStop("u2", tokenU2, StopReason.REASSIGNED));
    List<UnitEvent> events = a.r().events();
    assertThat(events.indexOf(new UnitStop("u2", tokenU2, StopReason.REASSIGNED)))
        .isGreaterThan(events.stream().filter(e -> e.unit().equals("u2")).findFirst().map(events::indexOf).orElseThrow());
    assertThat(a.d().assigned().keySet()).containsExactlyInAnyOrder("u1", "u3");
    assertCountReaches("releases", () -> a.d().stats().releases(), 1);
  }

  @Test
  void registersServesBothPingsAndCancelStopsReleasesAndDeregisters() {
    M a = member("A");
    ManagedChannel ch = channel(a.id());
    assertThat(mem.seedKeys().list(P)).contains(a.id());
    MemberRecord rec = mem.membership(P).members().get(a.id());
    assertThat(rec.affinity()).isEqualTo(1);
    assertThat(rec.capacity()).isEqualTo(Integer.MAX_VALUE);
    assertThat(rec.session()).isEqualTo(a.d().session().orElseThrow());
    assertThat(rec.liveAt(mem.clock().timeMillis())).isTrue();
    assertThat(health(ch)).isEqualTo(ServingStatus.SERVING);
    assertThat(legacyPing(ch)).isEqualTo(Status.Code.OK);

    table.publish(a.id(), "u1,u2");
    await().until(() -> a.d().assigned().size() == 2);

    a.d().cancel();

    assertThat(a.r().stops(StopReason.SHUTDOWN)).extracting(UnitStop::unit).containsExactlyInAnyOrder("u1", "u2");
    assertThat(mem.ownership(P).owners()).isEmpty(); // confirmed within the grace: released at once
    assertThat(mem.membership(P).members()).doesNotContainKey(a.id());
    assertThat(mem.seedKeys().list(P)).doesNotContain(a.id());
    assertThat(a.d().assigned()).isEmpty();
    assertThat(a.d().session()).isEmpty();
    assertThat(health(ch)).isNull(); // port closed
    a.d().cancel(); // idempotent
  }

  @Test
  void aStopKeepsTheUnitOwnedUntilConfirmed() {
    M a = member("A", mem, b -> b, false);
    table.publish(a.id(), "u1");
    await().until(() -> a.d().assigned().containsKey("u1"));
    long token = a.d().assigned().get("u1");

    table.publish(a.id(), "");
    await().until(() -> a.r().stops(StopReason.REASSIGNED).size() == 1);
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(30))
        .until(() -> a.d().assigned().containsKey("u1") && mem.ownership(P).owners().get("u1").token() == token);

    assertThat(a.d().confirmStop("u1", token - 1)).as("another run's token").isFalse();
    assertThat(a.d().confirmStop("u1", token)).isTrue();
    assertThat(a.d().confirmStop("u1", token)).isFalse();
    assertThat(a.d().confirmStop("nope", token)).isFalse();
    await().until(() -> mem.ownership(P).owners().isEmpty() && a.d().assigned().isEmpty());
  }

  @Test
  void respectsCapacityAndClaimsInBatchesOfMaxConcurrentMoves() {
    M small = member("S", mem, b -> b.capacity(2), true);
    table.publish(small.id(), "u1,u2,u3,u4,u5");
    await().until(() -> small.d().assigned().size() == 2);
    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(30)).until(() -> small.d().assigned().size() == 2);
    assertThat(mem.membership(P).members().get(small.id()).capacity()).isEqualTo(2);

    M batched = member("B", mem, b -> b.maxConcurrentMoves(3), true);
    StringBuilder units = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      units.append(i == 0 ? "" : ",").append("b").append(i);
    }
    table.publish(small.id(), "u1,u2,u3,u4,u5", batched.id(), units.toString());
    await().until(() -> batched.d().assigned().size() == 20);
    assertThat(intervals.check().violations()).isEmpty();
  }

  @Test
  void eventsCanBePulledFromAQueue() throws Exception {
    BlockingQueue<UnitEvent> queue = new LinkedBlockingQueue<>();
    Divider d = closeLater(fast(mem, UnitListener.into(queue)).build());
    d.start();
    table.publish(d.memberId(), "q1");
    UnitEvent first = queue.poll(5, TimeUnit.SECONDS);
    assertThat(first).isEqualTo(new UnitStart("q1", d.assigned().get("q1")));
    long token = ((UnitStart) first).token();
    table.publish(d.memberId(), "");
    assertThat(queue.poll(5, TimeUnit.SECONDS)).isEqualTo(new UnitStop("q1", token, StopReason.REASSIGNED));
    assertThat(d.confirmStop("q1", token)).isTrue();
    await().until(() -> mem.ownership(P).owners().isEmpty());
  }

  @Test
  void aPoolNamedWithColonsWorksAsAnyOther() {
    String pool = "app:robots:list"; // ordinary Redis naming, which the original distributor accepts
    FakeDistributor colons = new FakeDistributor(mem, H, pool);
    Recorder r = new Recorder("C", intervals).autoConfirm();
    Divider d = started(fast(mem, r).pool(pool), r);
    colons.publish(d.memberId(), "u1");
    await().until(() -> d.assigned().containsKey("u1"));
    assertThat(mem.ownership(pool).owners()).containsOnlyKeys("u1");
    assertThat(mem.seedKeys().list(pool)).contains(d.memberId());
    d.cancel();
    assertThat(mem.ownership(pool).owners()).isEmpty();
  }

  @Test
  void aListenerIsRequiredAndStartWorksOnce() {
    Divider d = Divider.builder(mem).pool(P).build();
    org.assertj.core.api.Assertions.assertThatThrownBy(d::start)
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("listener");
    Recorder r = new Recorder("X", intervals);
    Divider e = started(fast(mem, r), r);
    org.assertj.core.api.Assertions.assertThatThrownBy(e::start).isInstanceOf(IllegalStateException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> e.addListener(r)).isInstanceOf(IllegalStateException.class);
  }
}
