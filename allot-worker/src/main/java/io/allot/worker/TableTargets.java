package io.allot.worker;

import io.allot.core.assign.SeedLayout;
import io.allot.store.Store;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import java.util.List;

/**
 * The target from the distributor's table: this member's field of the distribution hash, {@code "u1,u2,..."}, split
 * as the original layout writes it; a change is announced on {@link Topic#table(String)}.
 */
final class TableTargets implements TargetSource {
  private final Store store;
  private final String distribution;

  TableTargets(Store store, String distribution) {
    this.store = store;
    this.distribution = distribution;
  }

  @Override
  public List<String> read(String memberId) {
    return SeedLayout.split(store.tables().read(distribution, memberId).orElse(null));
  }

  @Override
  public Subscription watch(Runnable onChange) {
    return store.notifications().subscribe(Topic.table(distribution), message -> onChange.run());
  }

  @Override
  public String toString() {
    return "table " + distribution;
  }
}
