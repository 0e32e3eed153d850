package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class CancelTest extends WorkerTestBase {

  @Test
  void unitsNotConfirmedAtShutdownExpireWithTheLeaseAndNobodyGetsThemEarlier() {
    // A never confirms: its units must not be claimable before its lease has run out
    M a = member("A", mem, b -> b.shutdownGrace(Duration.ofMillis(200)), false);
    M b = member("B");
    table.publish(a.id(), "u1,u2", b.id(), "");
    await().until(() -> a.d().assigned().size() == 2);

    CompletableFuture<Void> cancelled = CompletableFuture.runAsync(() -> a.d().cancel());
    await().until(() -> a.r().stops(StopReason.SHUTDOWN).size() == 2);
    table.publish(a.id(), "", b.id(), "u1,u2");
    await().until(() -> b.d().assigned().size() == 2);
    cancelled.join();

    // A had been told LEASE_LOST (the recorder stops there) before B could start: no overlap
    assertThat(a.r().stops(StopReason.LEASE_LOST)).hasSize(2);
    assertThat(intervals.violations()).isEmpty();
    assertThat(mem.members(P)).doesNotContainKey(a.id());
    assertThat(mem.list(P)).doesNotContain(a.id());
  }

  @Test
  void cancelWorksWhileTheStoreIsDown() {
    FlakyStore flaky = new FlakyStore(mem);
    M a = member("A", flaky, b -> b, true);
    table.publish(a.id(), "u1");
    await().until(() -> a.d().assigned().size() == 1);
    flaky.mode(FlakyStore.Mode.DOWN);
    long t0 = System.nanoTime();
    a.d().cancel();
    assertThat(System.nanoTime() - t0).isLessThan(Duration.ofSeconds(5).toNanos());
    assertThat(a.r().stops(StopReason.SHUTDOWN)).hasSize(1);
    assertThat(health(channel(a.id()))).isNull();
  }

  @Test
  void cancelFromAListenerCallbackDoesNotDeadlock() {
    Recorder r = new Recorder("A", intervals).autoConfirm();
    Divider[] self = new Divider[1];
    Divider d = fast(mem, r).listener(new UnitListener() {
      @Override
      public void onStart(UnitStart start) {
        self[0].cancel();
      }

      @Override
      public void onStop(UnitStop stop) {}
    }).build();
    self[0] = d;
    started(d, r);
    table.publish(d.memberId(), "u1");
    await().until(() -> !mem.members(P).containsKey(d.memberId()));
    await().until(() -> mem.owners(P).isEmpty() || !mem.validToken(P, "u1", mem.owners(P).get("u1").token()));
  }
}
