package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The model check of {@link EndpointStopTime}: an endpoint that follows {@code jobs.proto}'s deadline rule (a
 * Heartbeat sets the deadline to receipt + stop_after, a Job only brings it nearer), on a clock that runs slow by up to
 * the drift rate, with transit, timer lateness and interrupt response summing up to the reaction allowance, and the
 * last messages possibly lost (a frozen stream), has always stopped by {@link EndpointStopTime#stoppedByNanos()}.
 * Each allowance is exercised at its limit, so the test fails when any one is dropped (seen failing with the drift,
 * the reaction and the maximum over all messages each removed in turn).
 */
class EndpointStopTimeTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long REACTION = 200 * MS;
  private static final double DRIFT = 0.01;

  /** A message with a deadline, sent at {@code sent} (real time), received {@code transit} later or lost. */
  private record Sent(long sent, long stopAfterMs, boolean heartbeat, long transit, boolean lost) {}

  /**
   * The real instant the model endpoint has stopped its handlers: its deadline (on a clock whose {@code ms} last
   * {@code ms * (1 + slow)} real ms), then the timer's lateness and the handlers' response to the interrupt.
   */
  private static long endpointStops(List<Sent> messages, double slow, long lateness, long interrupt) {
    long deadline = 0;
    boolean armed = false;
    for (Sent m : messages) { // one stream: delivered in order
      if (m.lost()) {
        break; // a frozen stream delivers nothing after this
      }
      long at = m.sent() + m.transit() + (long) Math.ceil(m.stopAfterMs() * MS * (1 + slow));
      if (m.heartbeat() || !armed || at < deadline) {
        deadline = at;
        armed = true;
      }
    }
    assertThat(armed).as("the model needs a delivered deadline").isTrue();
    return deadline + lateness + interrupt;
  }

  private static EndpointStopTime dispatcherView(List<Sent> messages) {
    EndpointStopTime t = new EndpointStopTime(REACTION, DRIFT);
    messages.forEach(m -> t.sent(m.sent(), m.stopAfterMs()));
    return t;
  }

  @Test
  void atTheLimitOfTheClockDriftTheEndpointHasStoppedByTheStopTime() {
    List<Sent> m = List.of(new Sent(0, 1000, true, 0, false));
    assertThat(dispatcherView(m).stoppedByNanos()).isGreaterThanOrEqualTo(endpointStops(m, DRIFT, 0, 0));
  }

  @Test
  void atTheLimitOfTheReactionTheEndpointHasStoppedByTheStopTime() {
    // transit, timer lateness and the handler's response to the interrupt use up the reaction allowance together
    List<Sent> m = List.of(new Sent(0, 1000, true, 80 * MS, false));
    assertThat(dispatcherView(m).stoppedByNanos())
        .isGreaterThanOrEqualTo(endpointStops(m, 0, 70 * MS, REACTION - 150 * MS));
  }

  @Test
  void aLaterShorterDeadlineThatNeverArrivedDoesNotCount() {
    // the lock kept shrinking (a short TTL), the second Heartbeat froze in transit: the first one's deadline holds
    List<Sent> m = List.of(new Sent(0, 1000, true, 0, false), new Sent(250 * MS, 100, true, 0, true));
    assertThat(dispatcherView(m).stoppedByNanos()).isGreaterThanOrEqualTo(endpointStops(m, 0, 0, 0));
  }

  @Test
  void everyMessageWithinTheAllowancesIsCovered() {
    Random r = new Random(42);
    for (int trial = 0; trial < 10_000; trial++) {
      List<Sent> m = new ArrayList<>();
      long t = 0;
      int n = 1 + r.nextInt(8);
      long transitLeft = r.nextInt(2) == 0 ? REACTION : r.nextLong(REACTION + 1);
      for (int i = 0; i < n; i++) {
        t += r.nextLong(300 * MS);
        m.add(new Sent(t, 1 + r.nextInt(1500), i == 0 || r.nextBoolean(), r.nextLong(transitLeft + 1),
            i > 0 && r.nextInt(4) == 0));
      }
      long worstTransit = m.stream().mapToLong(Sent::transit).max().orElse(0);
      long lateness = r.nextLong(REACTION - worstTransit + 1);
      long interrupt = REACTION - worstTransit - lateness;
      double slow = r.nextDouble() * DRIFT;
      long stops = endpointStops(m, slow, lateness, interrupt);
      assertThat(dispatcherView(m).stoppedByNanos()).as("trial %d: %s", trial, m).isGreaterThanOrEqualTo(stops);
    }
  }

  @Test
  void withoutADeadlineSentNothingIsKnown() {
    EndpointStopTime t = new EndpointStopTime(REACTION, DRIFT);
    t.sent(0, 0); // a message without a deadline
    assertThat(t.known()).isFalse();
    assertThat(t.surelyStopped(Long.MAX_VALUE / 2)).isFalse();
    assertThatThrownBy(t::stoppedByNanos).isInstanceOf(IllegalStateException.class);
    t.sent(5 * MS, 1000);
    assertThat(t.surelyStopped(5 * MS + 1000 * MS)).isFalse();
    assertThat(t.surelyStopped(5 * MS + 1010 * MS + REACTION + 1)).isTrue();
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> new EndpointStopTime(-1, DRIFT)).hasMessageContaining("reaction");
    assertThatThrownBy(() -> new EndpointStopTime(0, 1.5)).hasMessageContaining("drift");
  }
}
