package io.allot.worker;

import io.allot.store.Subscription;
import java.util.List;

/**
 * Where a member's target (the units it should own) comes from. Today the distributor's table
 * ({@link TableTargets}); long-running task specs will be a second source. The reconciliation loop reads the target
 * every round and never trusts it for safety: a stale target can delay a move, never double it (the store's claims
 * decide ownership).
 */
interface TargetSource {

  /**
   * The units {@code memberId} should own now, in order (duplicates are ignored by the caller).
   *
   * @throws io.allot.store.StoreUnavailableException if the source cannot be read now (retried next round)
   */
  List<String> read(String memberId);

  /**
   * Calls {@code onChange} whenever the target may have changed, on a thread of the source; a hint only (a lost one
   * is covered by the timed rounds), so {@code onChange} must be cheap and must not block.
   *
   * @return the subscription, closed at shutdown
   */
  Subscription watch(Runnable onChange);

  /**
   * The member the source gives each unit to, for every unit it gives (a unit listed under two members: either), so
   * a releasing member can hand a unit straight to its next owner ({@link io.allot.store.Ownership#handOffAll});
   * only a hint (the store checks the member's session and lease). The default knows none (plain releases).
   *
   * @throws io.allot.store.StoreUnavailableException if the source cannot be read now
   */
  default java.util.Map<String, String> owners() {
    return java.util.Map.of();
  }
}
