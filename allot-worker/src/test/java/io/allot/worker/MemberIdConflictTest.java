package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.MemberConflictException;
import io.allot.store.Store;
import io.allot.store.UnitOwner;
import io.allot.testkit.FaultyStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Two processes with the same member id (both advertise {@code 127.0.0.1:7001}, say) must not steal from each other:
 * the store refuses a registration of a live id, the second process fails to start naming the id, and the first
 * keeps its session and its units. A process that restarts before its killed predecessor's lease ran out waits for it
 * instead, and then registers.
 */
class MemberIdConflictTest extends WorkerTestBase {
  /** Pings on the application's server (not started: only the port matters), so both can claim one id. */
  private static final int PORT = 7001;

  private Divider withTheSameId(Store store, Recorder r) {
    Divider d = fast(store, r).pingsOnAppServer(PORT).build();
    d.pingServices();
    r.attach(d);
    closeables.add(d);
    return d;
  }

  @Test
  void aSecondProcessWithTheSameIdFailsToStartNamingItAndTheFirstKeepsItsUnits() {
    Divider first = withTheSameId(mem, new Recorder("first", intervals).autoConfirm());
    first.start();
    table.publish(first.memberId(), "u1,u2");
    await().until(() -> first.assigned().size() == 2);
    long session = first.session().orElseThrow();
    Map<String, Long> tokens = first.assigned();

    Recorder r2 = new Recorder("second", intervals).autoConfirm();
    Divider second = withTheSameId(mem, r2);
    assertThatThrownBy(second::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'" + first.memberId() + "'")
        .hasMessageContaining("another process")
        .hasCauseInstanceOf(MemberConflictException.class);

    assertThat(first.session()).hasValue(session);
    assertThat(first.leaseValid()).isTrue();
    assertThat(first.assigned()).isEqualTo(tokens);
    assertThat(first.stats().leaseLosses()).isZero();
    assertThat(mem.membership(P).members().get(first.memberId()).session()).isEqualTo(session);
    Map<String, UnitOwner> owners = mem.ownership(P).owners();
    tokens.forEach((u, t) -> assertThat(owners.get(u)).isEqualTo(new UnitOwner(u, first.memberId(), session, t)));
    assertThat(r2.starts()).isEmpty();
  }

  @Test
  void aRestartAfterAKillWaitsForTheOldLeaseThenRegisters() {
    FaultyStore killed = new FaultyStore(mem);
    Divider old = withTheSameId(killed, new Recorder("old", intervals).autoConfirm());
    old.start();
    table.publish(old.memberId(), "u1");
    await().until(() -> old.assigned().containsKey("u1"));
    long oldSession = old.session().orElseThrow();
    long oldToken = old.assigned().get("u1");
    killed.availability(FaultyStore.Availability.DOWN); // as kill -9: no more renewals, no deregistration
    await().until(() -> !old.leaseValid()); // from now on nothing can extend the old lease
    long until = mem.membership(P).members().get(old.memberId()).leaseUntilMillis();
    long margin = mem.safety().clockMargin().toMillis();

    FaultyStore fresh = new FaultyStore(mem);
    List<Long> attempts = new CopyOnWriteArrayList<>(); // store time of each registration attempt
    fresh.intercept(call -> {
      if (call.equals("membership.register")) {
        attempts.add(mem.clock().timeMillis());
      }
    });
    Recorder r = new Recorder("restarted", intervals).autoConfirm();
    Divider restarted = withTheSameId(fresh, r);
    restarted.start(); // waits for the old lease instead of failing

    assertThat(restarted.session()).isPresent();
    assertThat(restarted.session().getAsLong()).isGreaterThan(oldSession);
    assertThat(attempts.get(0)).as("the old session was live at the first attempt").isLessThan(until);
    // - 1: a store may round its clock and expiries apart (as the store contract allows)
    assertThat(attempts.get(attempts.size() - 1)).isGreaterThanOrEqualTo(until + margin - 1);
    await().until(() -> restarted.assigned().containsKey("u1"));
    assertThat(restarted.assigned().get("u1")).isGreaterThan(oldToken);
    assertThat(intervals.check().violations()).isEmpty();
  }
}
