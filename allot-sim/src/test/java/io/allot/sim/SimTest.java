package io.allot.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The kernel: event order, pauses, cancellation, gone actors. */
class SimTest {
  private static final long MS = 1_000_000L;

  /** An actor whose pause and death the test sets. */
  private static final class TestActor implements Sim.Actor {
    long pausedUntil = Long.MIN_VALUE;
    boolean gone;

    @Override
    public boolean gone() {
      return gone;
    }

    @Override
    public long pausedUntil() {
      return pausedUntil;
    }
  }

  private final Sim sim = new Sim(1);
  private final List<String> ran = new ArrayList<>();

  private void runAll() {
    while (sim.step()) {
      // every event
    }
  }

  private Runnable log(String name) {
    return () -> ran.add(name + "@" + (sim.now() - Sim.EPOCH) / MS);
  }

  @Test
  void eventsRunByTimeThenInTheOrderTheyWereScheduled() {
    sim.after(20 * MS, null, log("c"));
    sim.after(10 * MS, null, log("a"));
    sim.after(10 * MS, null, log("b"));
    sim.after(0, null, log("now"));
    runAll();
    assertThat(ran).containsExactly("now@0", "a@10", "b@10", "c@20");
    assertThat(sim.executed()).isEqualTo(4);
  }

  @Test
  void aPausedActorsEventsWaitForThePauseToEndAndKeepTheirOrder() {
    TestActor actor = new TestActor();
    actor.pausedUntil = Sim.EPOCH + 50 * MS;
    sim.after(10 * MS, actor, log("first"));
    sim.after(50 * MS, actor, log("atTheEnd")); // due exactly when the pause ends: still behind the held ones
    sim.after(20 * MS, actor, log("second"));
    sim.after(30 * MS, null, log("someoneElse"));
    sim.after(60 * MS, actor, log("later"));
    runAll();
    assertThat(ran).containsExactly("someoneElse@30", "first@50", "second@50", "atTheEnd@50", "later@60");
  }

  @Test
  void cancelReachesAnEventHeldBackByAPause() {
    TestActor actor = new TestActor();
    actor.pausedUntil = Sim.EPOCH + 50 * MS;
    Sim.Event e = sim.after(10 * MS, actor, log("held"));
    sim.after(20 * MS, null, e::cancel); // after it was held back
    runAll();
    assertThat(ran).isEmpty();
  }

  @Test
  void theEventsOfAGoneActorAreDropped() {
    TestActor actor = new TestActor();
    sim.after(10 * MS, actor, log("before"));
    sim.after(20 * MS, null, () -> actor.gone = true);
    sim.after(30 * MS, actor, log("after"));
    runAll();
    assertThat(ran).containsExactly("before@10");
  }

  @Test
  void theSameSeedDrawsTheSameNumbers() {
    Sim other = new Sim(1);
    for (int i = 0; i < 100; i++) {
      assertThat(other.uniform(0, 1_000 * MS)).isEqualTo(sim.uniform(0, 1_000 * MS));
    }
  }

  @Test
  void traceTimesReadAsMillisecondsWithMicroseconds() {
    assertThat(Trace.time(Sim.EPOCH + 1_234_567_000L)).isEqualTo("1234.567");
    assertThat(Trace.time(Sim.EPOCH + 5_007_000L)).isEqualTo("5.007");
  }
}
