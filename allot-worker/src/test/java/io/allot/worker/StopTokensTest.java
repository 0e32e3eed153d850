package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.UnitHold;
import io.allot.testkit.FaultyStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Stops, confirmations and releases name the run they mean by its token: a late confirmation of an earlier run never
 * releases a later one, and a release goes through the stopping state (the application confirms that the run
 * stopped) before the unit is released in the store, with a hold the distributor honours.
 */
class StopTokensTest extends WorkerTestBase {

  @Test
  void aLateConfirmationOfAnEarlierRunDoesNotReleaseTheLaterRun() {
    FaultyStore flaky = new FaultyStore(mem);
    M a = member("A", flaky, b -> b, false); // confirms nothing by itself
    table.publish(a.id(), "u1");
    await().until(() -> a.d().assigned().containsKey("u1"));
    long first = a.d().assigned().get("u1");

    // the first run is told to stop; its application is slow to confirm...
    table.publish(a.id(), "");
    await().until(() -> a.r().stops(StopReason.REASSIGNED).size() == 1);
    assertThat(a.r().stops(StopReason.REASSIGNED).get(0).token()).isEqualTo(first);
    // ...meanwhile the member fences itself, comes back and runs the unit again: a second run
    flaky.availability(FaultyStore.Availability.DOWN);
    await().until(() -> a.r().stops(StopReason.LEASE_LOST).size() == 1);
    flaky.availability(FaultyStore.Availability.UP);
    table.publish(a.id(), "u1");
    await().until(() -> a.d().assigned().containsKey("u1") && a.d().assigned().get("u1") != first);
    long second = a.d().assigned().get("u1");
    assertThat(second).isGreaterThan(first);
    // the second run is told to stop too
    table.publish(a.id(), "");
    await().until(() -> a.r().stops(StopReason.REASSIGNED).size() == 2);
    assertThat(a.r().stops(StopReason.REASSIGNED).get(1).token()).isEqualTo(second);

    // the first run's confirmation arrives now: it must not release the second run, which still runs
    assertThat(a.d().confirmStop("u1", first)).isFalse();
    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(30)).until(() ->
        a.d().assigned().containsKey("u1") && mem.ownership(P).owners().containsKey("u1")
            && mem.ownership(P).owners().get("u1").token() == second);

    assertThat(a.d().confirmStop("u1", second)).isTrue();
    await().until(() -> !mem.ownership(P).owners().containsKey("u1") && a.d().assigned().isEmpty());
  }

  @Test
  void aReleaseStopsTheRunFirstAndLeavesAHoldInTheStoreOnceConfirmed() {
    M a = member("A", mem, b -> b.releaseHold(Duration.ofSeconds(30)), false);
    table.publish(a.id(), "u1,u2");
    await().until(() -> a.d().assigned().size() == 2);
    long token = a.d().assigned().get("u1");

    assertThat(a.d().release("u1", token - 1)).as("another run's token").isFalse();
    assertThat(a.d().release("u1", token)).isTrue();
    await().until(() -> a.r().stops(StopReason.RELEASED).size() == 1);
    assertThat(a.r().stops(StopReason.RELEASED)).containsExactly(new UnitStop("u1", token, StopReason.RELEASED));
    // not released while the application may still run it: it has not confirmed yet
    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(30)).until(() ->
        a.d().assigned().containsKey("u1") && mem.ownership(P).owners().containsKey("u1")
            && mem.ownership(P).owners().get("u1").token() == token && mem.ownership(P).holds().isEmpty());
    assertThat(a.d().release("u1", token)).as("already stopping: no second stop").isTrue();

    long beforeConfirm = mem.clock().timeMillis();
    assertThat(a.r().confirm("u1")).isTrue();
    await().until(() -> !mem.ownership(P).owners().containsKey("u1") && !a.d().assigned().containsKey("u1"));
    // released with the hold: the distributor gives the unit to another member at once
    assertThat(mem.ownership(P).holds()).containsOnlyKeys("u1");
    UnitHold hold = mem.ownership(P).holds().get("u1");
    assertThat(hold.member()).isEqualTo(a.id());
    assertThat(hold.untilMillis()).isGreaterThanOrEqualTo(beforeConfirm + Duration.ofSeconds(30).toMillis());
    assertThat(a.r().stops(StopReason.RELEASED)).hasSize(1);
    // and this member does not take it back meanwhile, although its target still names it
    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(30))
        .until(() -> !a.d().assigned().containsKey("u1"));
    assertThat(a.d().assigned()).containsOnlyKeys("u2");
  }
}
