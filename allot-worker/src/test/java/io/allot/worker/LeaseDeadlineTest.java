package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The lease arithmetic on a hand-driven clock: no threads, no store. Times in ms for reading; the class uses ns. */
class LeaseDeadlineTest {
  private static final long MS = 1_000_000L;
  private final AtomicLong clock = new AtomicLong(1_000 * MS);
  /** ttl 1500 ms, margin 500 ms: trust lasts 1000 ms after a renewal was sent; the store's clock margin 200 ms. */
  private final LeaseDeadline lease = new LeaseDeadline(1500 * MS, 500 * MS, 200 * MS, clock::get);

  private void at(long ms) {
    clock.set(ms * MS);
  }

  @Test
  void notHeldBeforeTheFirstRegistration() {
    assertThat(lease.held()).isFalse();
    assertThat(lease.valid()).isFalse();
    assertThat(lease.ranOut()).isFalse(); // nothing to fence
    assertThat(lease.mayRegister()).isTrue();
  }

  @Test
  void theDeadlineCountsFromWhenTheRenewalWasSentNotAcknowledged() {
    lease.registered(1_000 * MS, 1_400 * MS); // a slow answer: 400 ms in flight
    assertThat(lease.fenceAtNanos()).isEqualTo(2_000 * MS); // 1000 + 1500 - 500
    at(1_999);
    assertThat(lease.valid()).isTrue();
    assertThat(lease.ranOut()).isFalse();
    at(2_000);
    assertThat(lease.valid()).isFalse();
    assertThat(lease.ranOut()).isTrue();

    lease.renewed(1_900 * MS, 2_600 * MS); // sent before the deadline, answered after it
    assertThat(lease.fenceAtNanos()).isEqualTo(2_900 * MS);
    assertThat(lease.valid()).isTrue();
  }

  @Test
  void anOlderRenewalAnsweredLateNeverMovesTheDeadlineBack() {
    lease.registered(1_000 * MS, 1_010 * MS);
    lease.renewed(1_600 * MS, 1_610 * MS);
    lease.renewed(1_300 * MS, 1_700 * MS); // sent earlier, answered later
    assertThat(lease.fenceAtNanos()).isEqualTo(2_600 * MS);
    assertThat(lease.oldLeaseEndNanos()).isEqualTo(3_400 * MS); // the latest acknowledgement + ttl + clock margin
  }

  @Test
  void afterAFenceTheMemberRegistersAgainOnlyOnceTheOldLeaseSurelyRanOut() {
    lease.registered(1_000 * MS, 1_100 * MS);
    lease.renewed(1_300 * MS, 1_350 * MS);
    long g = lease.generation();
    at(2_400); // 100 ms past the deadline (1300 + 1000): a pause
    long wall = 50_000;
    assertThat(lease.fence(wall)).isEqualTo(wall - 100); // dated at the deadline, not at its discovery
    assertThat(lease.held()).isFalse();
    assertThat(lease.valid()).isFalse();
    assertThat(lease.ranOut()).isFalse(); // fenced once, not again
    assertThat(lease.generation()).isNotEqualTo(g);

    // the store may keep the old lease until the last acknowledgement + ttl = 1350 + 1500, and lets nobody take it
    // over for the clock margin after that (200 ms)
    at(2_850);
    assertThat(lease.mayRegister()).isFalse();
    at(3_049);
    assertThat(lease.mayRegister()).isFalse();
    at(3_050);
    assertThat(lease.mayRegister()).isTrue();

    lease.registered(3_050 * MS, 3_060 * MS);
    assertThat(lease.valid()).isTrue();
    assertThat(lease.mayRegister()).isTrue();
  }

  @Test
  void aFenceOnARefusedRenewalIsDatedNow() {
    lease.registered(1_000 * MS, 1_010 * MS);
    at(1_200);
    assertThat(lease.fence(7_000)).isEqualTo(7_000);
  }

  @Test
  void aStartMayRunOnlyInItsGenerationAndBeforeTheDeadline() {
    lease.registered(1_000 * MS, 1_010 * MS);
    long g = lease.generation();
    assertThat(lease.startMayRun(g)).isTrue();
    assertThat(lease.startMayRun(g - 1)).isFalse();
    at(2_000);
    assertThat(lease.startMayRun(g)).as("deadline passed, not fenced yet").isFalse();
    at(1_500);
    lease.fence(0);
    lease.registered(3_000 * MS, 3_000 * MS);
    at(3_000);
    assertThat(lease.startMayRun(g)).as("a start of the previous generation").isFalse();
    assertThat(lease.startMayRun(lease.generation())).isTrue();
    lease.drop();
    assertThat(lease.startMayRun(lease.generation())).isFalse();
  }

  @Test
  void theDeadlineInWallClockMillis() {
    lease.registered(1_000 * MS, 1_010 * MS);
    at(1_250);
    assertThat(lease.deadlineMillis(10_000)).isEqualTo(10_750);
    at(2_300);
    assertThat(lease.deadlineMillis(10_000)).isEqualTo(9_700); // in the past once the lease is in doubt
    assertThat(lease.millisSinceLastRenewSent()).isEqualTo(1_300);
  }

  @Test
  void theClockMayStartNegative() {
    at(-10_000);
    lease.registered(-10_000 * MS, -9_990 * MS);
    at(-9_001);
    assertThat(lease.valid()).isTrue();
    at(-9_000);
    assertThat(lease.valid()).isFalse();
  }

  @Test
  void theMarginMustBeInsideTheTtl() {
    assertThatThrownBy(() -> new LeaseDeadline(100, 100, 0, clock::get)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LeaseDeadline(100, 0, 0, clock::get)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LeaseDeadline(100, 50, -1, clock::get)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("clockMargin");
  }
}
