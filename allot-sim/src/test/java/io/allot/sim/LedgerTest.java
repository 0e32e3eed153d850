package io.allot.sim;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Invariants 1 and 2 on hand-made runs. */
class LedgerTest {
  private final Sim sim = new Sim(1);
  private final SimStore store = new SimStore(sim, SimConfig.defaults());
  private final Ledger ledger = new Ledger(sim, store);

  @AfterEach
  void close() {
    store.close();
  }

  private Ledger.Run run(String process, long token) {
    return new Ledger.Run("u1", process, process.substring(0, process.indexOf('#')), token, 1);
  }

  @Test
  void runsOneAfterTheOtherAreFine() {
    Ledger.Run a = run("m1#1", 10);
    ledger.begin(a);
    ledger.end(a);
    ledger.begin(run("m2#1", 11));
    assertThatCode(ledger::check).doesNotThrowAnyException();
  }

  @Test
  void twoRunsAtOnceBreakInvariant1() {
    ledger.begin(run("m1#1", 10));
    assertThatThrownBy(() -> ledger.begin(run("m2#1", 11)))
        .isInstanceOf(SimViolation.class)
        .hasMessageContaining("1 one-runner")
        .hasMessageContaining("u1 starts on m2#1")
        .hasMessageContaining("still runs on m1#1");
  }

  @Test
  void aTokenThatDoesNotGrowBreaksInvariant2() {
    Ledger.Run a = run("m1#1", 10);
    ledger.begin(a);
    ledger.end(a);
    assertThatThrownBy(() -> ledger.begin(run("m2#1", 10)))
        .isInstanceOf(SimViolation.class)
        .hasMessageContaining("2 tokens");
  }

  @Test
  void theStoreMayRepeatATokenToItsOwnerButNeverGoBack() {
    ledger.granted("u1", 5, 10);
    assertThatCode(() -> ledger.granted("u1", 5, 10)).doesNotThrowAnyException(); // a repeated claim
    assertThatThrownBy(() -> ledger.granted("u1", 6, 10)).hasMessageContaining("2 tokens");
    assertThatThrownBy(() -> ledger.granted("u1", 6, 9)).hasMessageContaining("2 tokens");
    assertThatCode(() -> ledger.granted("u1", 6, 11)).doesNotThrowAnyException();
  }
}
