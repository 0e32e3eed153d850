package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.FaultyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
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
    assertThat(intervals.check().violations()).isEmpty();
    assertThat(mem.membership(P).members()).doesNotContainKey(a.id());
    assertThat(mem.seedKeys().list(P)).doesNotContain(a.id());
  }

  /**
   * The shutdown grace is a grace: a unit whose stop is confirmed after longer than the lease deadline (but within
   * {@code shutdownGrace}) is released normally, because the lease is still renewed while the member leaves (found by
   * allot-sim: renewals stopped at {@code cancel()}, so the grace was cut to the lease deadline).
   */
  @Test
  void theLeaseIsRenewedDuringTheShutdownGrace() {
    M a = member("A", mem, b -> b.shutdownGrace(Duration.ofSeconds(5)), false);
    table.publish(a.id(), "u1");
    await().until(() -> a.d().assigned().size() == 1);
    CompletableFuture<Void> cancelled = CompletableFuture.runAsync(() -> a.d().cancel());
    await().until(() -> a.r().stops(StopReason.SHUTDOWN).size() == 1);
    // confirm after 2.5 s: past the lease deadline (3 s - 0.9 s margin after the last renewal), within the grace
    delayer.schedule(() -> a.r().confirm("u1"), 2500, java.util.concurrent.TimeUnit.MILLISECONDS);
    cancelled.join();
    assertThat(a.r().stops(StopReason.LEASE_LOST)).as("no self-fence during the grace").isEmpty();
    assertThat(a.d().stats().releases()).as("released after the confirmation").isEqualTo(1);
    assertThat(intervals.check().violations()).isEmpty();
  }

  /**
   * {@code cancel()} right after a self-fence (a shutdown hook when the store just came back) must not deregister at
   * once: the fenced lease may still run in the store, and deregistering would make its units claimable before the
   * old lease and the store's clock margin ran out, while the application may still be stopping them.
   */
  @Test
  void cancelRightAfterASelfFenceWaitsOutTheOldLeaseAndTheClockMargin() {
    FaultyStore flaky = new FaultyStore(mem);
    List<Long> deregisteredAt = new CopyOnWriteArrayList<>(); // store time of each deregistration attempt
    flaky.intercept(call -> {
      if (call.equals("membership.deregister")) {
        deregisteredAt.add(mem.clock().timeMillis());
      }
    });
    M a = member("A", flaky, b -> b, true);
    List<Long> bStartedAt = new CopyOnWriteArrayList<>(); // store time of B's start of u1
    M b = member("B", mem, x -> x.listener(UnitListener.of(start -> bStartedAt.add(mem.clock().timeMillis()), stop -> {})), true);
    table.publish(a.id(), "u1", b.id(), "");
    await().until(() -> a.d().assigned().containsKey("u1"));
    List<Long> stoppedAt = new CopyOnWriteArrayList<>(); // store time of A's LEASE_LOST stop
    a.r().onLeaseLostStop(stop -> stoppedAt.add(mem.clock().timeMillis()));

    flaky.availability(FaultyStore.Availability.DOWN);
    await().until(() -> !stoppedAt.isEmpty());
    long until = mem.membership(P).members().get(a.id()).leaseUntilMillis();
    long margin = mem.safety().clockMargin().toMillis();
    // at the stop, not by the test thread now, which a loaded machine may run after the old lease has run out anyway
    assertThat(stoppedAt).singleElement().as("fenced while the old lease still ran").satisfies(t ->
        assertThat(t).isLessThan(until));
    flaky.availability(FaultyStore.Availability.UP);
    table.publish(a.id(), "", b.id(), "u1");
    a.d().cancel();

    // on B's delivered start, not on B's assigned(): that changes before the event thread delivers the start
    await().until(() -> !bStartedAt.isEmpty());
    // - 1: a store may round its clock and expiries apart (as the store contract allows)
    assertThat(deregisteredAt).isNotEmpty().allSatisfy(t -> assertThat(t).as("deregistered at store time, lease until"
        + " %d, margin %d ms", until, margin).isGreaterThanOrEqualTo(until + margin - 1));
    assertThat(bStartedAt).singleElement().satisfies(t -> assertThat(t).isGreaterThanOrEqualTo(until + margin - 1));
    assertThat(mem.membership(P).members()).doesNotContainKey(a.id());
    assertThat(mem.seedKeys().list(P)).doesNotContain(a.id());
    assertThat(intervals.check().violations()).isEmpty();
  }

  @Test
  void cancelWorksWhileTheStoreIsDown() {
    FaultyStore flaky = new FaultyStore(mem);
    M a = member("A", flaky, b -> b, true);
    table.publish(a.id(), "u1");
    await().until(() -> a.d().assigned().size() == 1);
    flaky.availability(FaultyStore.Availability.DOWN);
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
    Divider d = fast(mem, r).listener(UnitListener.of(start -> self[0].cancel(), stop -> {})).build();
    self[0] = d;
    started(d, r);
    table.publish(d.memberId(), "u1");
    await().until(() -> !mem.membership(P).members().containsKey(d.memberId()));
    await().until(() -> {
      io.allot.store.UnitOwner o = mem.ownership(P).owners().get("u1");
      return o == null || !mem.ownership(P).validToken("u1", o.member(), o.session(), o.token());
    });
  }
}
