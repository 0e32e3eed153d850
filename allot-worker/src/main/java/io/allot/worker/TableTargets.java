package io.allot.worker;

import io.allot.store.Store;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The target from the distributor's table: this member's units in the distribution hash, decoded by the store's
 * {@link io.allot.store.Tables#units(String, String)}; a change is announced on {@link Topic#table(String)}.
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
    return store.tables().units(distribution, memberId);
  }

  @Override
  public Map<String, String> owners() {
    Map<String, String> out = new HashMap<>();
    store.tables().units(distribution).forEach((member, units) -> units.forEach(u -> out.putIfAbsent(u, member)));
    return out;
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
