package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Handoff;
import io.allot.store.Topic;
import io.allot.store.UnitOwner;
import io.allot.testkit.FaultyStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Push handoffs ({@link io.allot.store.Ownership#handOffAll}): the old owner's release grants a reassigned unit to the
 * member the table names, and that member starts it on the grant announcement, without a claim. Safety is unchanged
 * (the {@link io.allot.testkit.overlap.OwnershipLog} of every test): a grant is acted on only for this member's
 * current session, and never when its token is at or below one this session has already seen for the unit.
 */
class PushHandoffTest extends WorkerTestBase {

  @Test
  void theNewOwnerStartsAGrantedUnitWithoutAClaim() {
    FaultyStore countingB = new FaultyStore(mem);
    AtomicInteger claims = new AtomicInteger();
    countingB.intercept(call -> {
      if (call.startsWith("ownership.claim")) {
        claims.incrementAndGet();
      }
    });
    M a = member("A", mem, x -> x, false);
    // timed rounds far apart: B's refused claim is not retried before the grant
    M b = member("B", countingB, x -> x.syncInterval(Duration.ofSeconds(5)), true);
    table.publish(a.id(), "u1", b.id(), "");
    await().until(() -> a.d().assigned().containsKey("u1"));
    long tokenA = a.d().assigned().get("u1");

    table.publish(a.id(), "", b.id(), "u1");
    await().until(() -> b.d().stats().claimsRefused() >= 1 && a.r().stops(StopReason.REASSIGNED).size() == 1);
    int claimsBefore = claims.get();

    a.r().confirm("u1");

    await().until(() -> b.d().assigned().containsKey("u1"));
    assertThat(claims.get() - claimsBefore).as("B's claims between the release and the start").isZero();
    assertThat(b.d().assigned().get("u1")).isGreaterThan(tokenA);
    assertThat(mem.ownership(P).owners().get("u1").member()).isEqualTo(b.id());
    assertThat(intervals.check().violations()).isEmpty();
  }

  @Test
  void aStaleGrantAnnouncementIsIgnored() {
    M a = member("A", mem, x -> x, false);
    M b = member("B", mem, x -> x.syncInterval(Duration.ofSeconds(5)), true);
    table.publish(a.id(), "u1", b.id(), "");
    await().until(() -> a.d().assigned().containsKey("u1"));
    table.publish(a.id(), "", b.id(), "u1");
    await().until(() -> a.r().stops(StopReason.REASSIGNED).size() == 1);
    a.r().confirm("u1");
    await().until(() -> b.d().assigned().containsKey("u1"));
    long t1 = b.d().assigned().get("u1");
    long sessionB = b.d().session().orElseThrow();
    String staleGrant = Handoff.grantMessage(new UnitOwner("u1", b.id(), sessionB, t1));

    table.publish(a.id(), "u1", b.id(), ""); // B stops and hands u1 back to A
    await().until(() -> a.d().assigned().containsKey("u1"));
    long t2 = a.d().assigned().get("u1");
    long refused = b.d().stats().claimsRefused();
    table.publish(a.id(), "", b.id(), "u1"); // and back to B: A does not confirm yet
    await().until(() -> a.r().stops(StopReason.REASSIGNED).size() == 2 && b.d().stats().claimsRefused() > refused);

    // B's first grant again (a late or repeated announcement) while A runs u1 under t2 and B wants it
    mem.notifications().publish(Topic.releases(P), staleGrant);
    a.r().confirm("u1"); // announced after the stale grant, on the same channel: B has seen the stale one by then

    await().until(() -> b.d().assigned().containsKey("u1"));
    assertThat(b.d().assigned().get("u1")).as("started by the new grant, not the stale one").isGreaterThan(t2);
    assertThat(intervals.check().violations()).isEmpty();
  }

  @Test
  void aRunTheSessionOwnsWithoutKnowingIsReleasedByThePeriodicCheck() {
    // the check runs every 20 sync intervals: 2 s here
    M b = member("B", mem, x -> x.syncInterval(Duration.ofMillis(100)), true);
    table.publish(b.id(), "u1");
    await().until(() -> b.d().assigned().containsKey("u1"));
    // a grant of u2 to B's session whose announcement was lost (u2 is not in B's target)
    long token = mem.ownership(P).claim("u2", b.id(), b.d().session().orElseThrow()).orElseThrow();
    assertThat(mem.ownership(P).owners().get("u2").token()).isEqualTo(token);

    await().until(() -> !mem.ownership(P).owners().containsKey("u2"));
    assertThat(b.d().assigned()).containsOnlyKeys("u1");
    assertThat(mem.ownership(P).owners()).containsOnlyKeys("u1");
  }
}
