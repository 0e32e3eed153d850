package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.FaultyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A member that must claim many units at once (a failover) claims them in batches of {@code claimBatch}, one
 * round after another; those rounds reuse the target read by the first one unless the table changed meanwhile, so
 * the chain costs one store round trip per batch instead of two.
 */
class ClaimChainTest extends WorkerTestBase {

  @Test
  void roundsThatContinueAClaimChainDoNotReadTheTableAgain() {
    FaultyStore counting = new FaultyStore(mem);
    AtomicInteger reads = new AtomicInteger();
    AtomicInteger batches = new AtomicInteger();
    counting.intercept(call -> {
      if (call.equals("tables.unitsOfMember")) {
        reads.incrementAndGet();
      } else if (call.equals("ownership.claimAll")) {
        batches.incrementAndGet();
      }
    });
    M a = member("A", counting, b -> b.claimBatch(4), true);
    await().until(() -> a.d().session().isPresent());
    List<String> units = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      units.add("u" + i);
    }
    int readsBefore = reads.get();
    int batchesBefore = batches.get();
    table.publish(a.id(), String.join(",", units));
    await().until(() -> a.d().assigned().size() == 40);
    int chainReads = reads.get() - readsBefore;
    int chainBatches = batches.get() - batchesBefore;
    System.out.printf("claim chain: %d batches, %d table reads%n", chainBatches, chainReads);
    assertThat(chainBatches).isGreaterThanOrEqualTo(10);
    // timed rounds (every syncInterval) may read the table too while the chain runs; a chain that re-read the table
    // every round would read it at least once per batch
    assertThat(chainReads).isLessThan(chainBatches / 2);
    assertThat(intervals.check().violations()).isEmpty();
  }

  @Test
  void aTableChangeDuringTheChainIsReadAtOnce() {
    M a = member("A", mem, b -> b.claimBatch(1), true);
    await().until(() -> a.d().session().isPresent());
    List<String> units = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      units.add("u" + i);
    }
    table.publish(a.id(), String.join(",", units));
    await().until(() -> a.d().assigned().size() >= 3);
    table.publish(a.id(), "x1"); // the chain is cut: the new target has one unit
    await().until(() -> a.d().assigned().keySet().equals(java.util.Set.of("x1")));
    assertThat(intervals.check().violations()).isEmpty();
  }
}
