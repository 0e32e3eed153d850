package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.StoreUnavailableException;
import io.allot.testkit.FaultyStore;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A claim that timed out on the client may have been applied in the store: the unit is then owned by a live session
 * that does not know it, and nobody runs it for as long as that session renews. The member checks the units whose
 * claim was in doubt and releases those it owns without running them.
 */
class ClaimsInDoubtTest extends WorkerTestBase {

  @Test
  void aClaimTheStoreAppliedButReportedAsFailedIsReleased() {
    M b = member("B");
    FaultyStore flaky = new FaultyStore(mem);
    AtomicReference<Divider> aRef = new AtomicReference<>();
    AtomicBoolean once = new AtomicBoolean();
    flaky.intercept(call -> {
      Divider a = aRef.get();
      if (call.equals("ownership.claimAll") && a != null && once.compareAndSet(false, true)) {
        // the store applies the claim...
        assertThat(mem.ownership(P).claimAll(List.of("u1"), a.memberId(), a.session().orElseThrow()))
            .containsOnlyKeys("u1");
        // ...the distributor moves the unit meanwhile...
        table.publish(a.memberId(), "", b.id(), "u1");
        // ...and the answer is lost
        throw new StoreUnavailableException("test: the claim was applied, its answer lost");
      }
    });
    M a = member("A", flaky, x -> x, true);
    aRef.set(a.d());
    table.publish(a.id(), "u1", b.id(), "");

    await().until(() -> b.d().assigned().containsKey("u1"));
    assertThat(once).isTrue();
    assertThat(a.r().starts()).isEmpty();
    assertThat(a.d().assigned()).isEmpty();
    assertThat(mem.ownership(P).owners()).allSatisfy((u, o) -> assertThat(o.member()).isEqualTo(b.id()));
    assertThat(a.d().leaseValid()).isTrue();
    assertThat(intervals.check().violations()).isEmpty();
  }
}
