package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobOutcome;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.allot.testkit.FaultyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockKeeper} without threads: one hand-driven nano clock for the memory store and the keeper, passes called
 * by the test, faults from {@link FaultyStore}.
 */
class LockKeeperTest {
  private static final Duration TTL = Duration.ofSeconds(3);

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final MemoryStore store = new MemoryStore(now::get);
  private final FaultyStore faulty = new FaultyStore(store);
  private final JobQueue queue = faulty.jobQueue("locks");
  private final LockKeeper keeper = new LockKeeper(queue, TTL, now::get);
  private final List<String> lost = new ArrayList<>();
  private final List<String> calls = new ArrayList<>();
  private final BiConsumer<HeldLock, String> onLost = (l, why) -> lost.add(l.key() + ": " + why);

  @AfterEach
  void close() {
    faulty.close();
    store.close();
  }

  private HeldLock claim(String key) {
    queue.enqueue(NewJob.of(key));
    long sent = now.get();
    ClaimedJob c = queue.claim("w", 1, TTL).get(0);
    return keeper.hold(c, sent);
  }

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void aLockIsExtendedOnceLessThanTwoThirdsOfItsTtlAreLeft() {
    long t0 = now.get();
    HeldLock l = claim("a");
    faulty.intercept(calls::add);
    advance(Duration.ofMillis(999)); // 2001 ms left: not due
    keeper.pass(onLost);
    assertThat(calls).isEmpty();
    assertThat(l.heldUntilNanos()).isEqualTo(t0 + TTL.toNanos());
    advance(Duration.ofMillis(2)); // 1999 ms left
    long sent = now.get();
    keeper.pass(onLost);
    assertThat(calls).containsExactly("jobQueue.extend");
    assertThat(l.heldUntilNanos()).isEqualTo(sent + TTL.toNanos());
    assertThat(l.stopRequested()).isFalse();
    assertThat(lost).isEmpty();
    assertThat(keeper.size()).isEqualTo(1);
  }

  @Test
  void aRefusedExtensionStopsTheAttemptForGoodAndTellsTheCaller() {
    HeldLock l = claim("a");
    queue.retry(List.of("a")); // by hand: the lock is taken away
    advance(Duration.ofMillis(1500));
    keeper.pass(onLost);
    assertThat(l.stopRequested()).isTrue();
    assertThat(l.refused()).as("known lost: a report would be refused too").isTrue();
    assertThat(lost).singleElement().asString().startsWith("a: its lock was lost");
    assertThat(keeper.size()).as("no longer kept").isZero();
  }

  @Test
  void aLockThatRanOutWhileTheStoreWasUnreachableStopsAndStaysStopped() {
    HeldLock l = claim("a");
    faulty.availability(FaultyStore.Availability.DOWN);
    advance(Duration.ofMillis(1500));
    keeper.pass(onLost);
    assertThat(lost).as("still within the lock: tried again next pass").isEmpty();
    assertThat(l.stopRequested()).isFalse();
    advance(Duration.ofMillis(1499));
    assertThat(l.stopRequested()).as("one millisecond before the lock runs out").isFalse();
    advance(Duration.ofMillis(1));
    assertThat(l.stopRequested()).as("the lock ran out, without a pass").isTrue();
    keeper.pass(onLost);
    assertThat(lost).singleElement().asString().startsWith("a: its lock ran out before it could be extended");
    assertThat(l.refused()).as("not known refused: a report's outcome would be unknown").isFalse();
    faulty.availability(FaultyStore.Availability.UP);
    keeper.pass(onLost);
    assertThat(l.stopRequested()).isTrue();
    assertThat(keeper.size()).isZero();
  }

  @Test
  void anExtensionAnsweredAfterTheLockRanOutDoesNotReviveTheAttempt() {
    HeldLock l = claim("a");
    advance(Duration.ofMillis(1500));
    faulty.intercept(call -> advance(Duration.ofMillis(1600))); // the call is slow: answered past the deadline
    keeper.pass(onLost);
    assertThat(l.stopRequested()).isTrue();
    assertThat(lost).singleElement().asString().startsWith("a: its lock ran out before the extension was answered");
  }

  @Test
  void aLockWhoseResultIsBeingReportedIsNotExtendedAndItsRefusalIsNoLoss() {
    HeldLock l = claim("a");
    keeper.reporting(l);
    assertThat(queue.finish("a", l.token())).isEqualTo(JobOutcome.FINISHED);
    faulty.intercept(calls::add);
    advance(Duration.ofMillis(1500));
    keeper.pass(onLost);
    assertThat(calls).isEmpty();
    assertThat(lost).isEmpty();
    assertThat(l.refuse()).as("a refusal after the report started may be the report itself").isFalse();
    assertThat(l.refused()).isFalse();
  }
}
