package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.FaultyStore;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The fast path of a planned move: the old owner releases a unit the moment its stop is confirmed, whatever its loop
 * is doing, and the new owner, woken by the release announcement, claims it without reading the table again. The
 * safety of the handoff is unchanged: the new owner starts only after the old one confirmed (checked by the
 * {@link io.allot.testkit.overlap.OwnershipLog} of every test).
 */
class PlannedHandoffTest extends WorkerTestBase {

  @Test
  void aConfirmedStopIsReleasedWhileTheLoopIsBusy() throws Exception {
    FaultyStore slowA = new FaultyStore(mem);
    AtomicBoolean blockReads = new AtomicBoolean();
    CountDownLatch inRead = new CountDownLatch(1);
    CountDownLatch unblock = new CountDownLatch(1);
    slowA.intercept(call -> {
      if (call.equals("tables.unitsOfMember") && blockReads.get()
          && Thread.currentThread().getName().startsWith("allot-worker-loop")) {
        inRead.countDown();
        try {
          unblock.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    closeables.add(unblock::countDown); // never leave the loop blocked
    M a = member("A", slowA, b -> b, false);
    M b = member("B", mem, x -> x, true);
    table.publish(a.id(), "u1", b.id(), "");
    await().until(() -> a.d().assigned().containsKey("u1"));

    table.publish(a.id(), "", b.id(), "u1");
    await().until(() -> a.r().stops(StopReason.REASSIGNED).size() == 1);
    blockReads.set(true);
    table.publish(a.id(), "", b.id(), "u1,u2"); // A's loop reads its (empty) field again, and stays in that read
    assertThat(inRead.await(10, TimeUnit.SECONDS)).isTrue();

    a.r().confirm("u1");

    await().until(() -> b.d().assigned().containsKey("u1"));
    assertThat(unblock.getCount()).as("A's loop is still in its round").isEqualTo(1);
    assertCountReaches("releases", () -> a.d().stats().releases(), 1);
    unblock.countDown();
    await().until(() -> a.d().assigned().isEmpty());
    assertThat(intervals.check().violations()).isEmpty();
  }

  @Test
  void anAwaitedReleaseIsClaimedWithoutReadingTheTableAgain() {
    FaultyStore countingB = new FaultyStore(mem);
    AtomicInteger reads = new AtomicInteger();
    countingB.intercept(call -> {
      if (call.equals("tables.unitsOfMember")) {
        reads.incrementAndGet();
      }
    });
    M a = member("A", mem, x -> x, false);
    // timed rounds far apart: whatever B does below, a release announcement made it do
    M b = member("B", countingB, x -> x.syncInterval(Duration.ofSeconds(5)), true);
    table.publish(a.id(), "u1", b.id(), "");
    await().until(() -> a.d().assigned().containsKey("u1"));
    long tokenA = a.d().assigned().get("u1");

    table.publish(a.id(), "", b.id(), "u1");
    await().until(() -> b.d().stats().claimsRefused() >= 1 && a.r().stops(StopReason.REASSIGNED).size() == 1);
    int readsBefore = reads.get();

    a.r().confirm("u1");

    await().until(() -> b.d().assigned().containsKey("u1"));
    assertThat(reads.get() - readsBefore).as("table reads between the release and the claim").isZero();
    assertThat(b.d().assigned().get("u1")).isGreaterThan(tokenA);
    assertThat(intervals.check().violations()).isEmpty();
  }
}
