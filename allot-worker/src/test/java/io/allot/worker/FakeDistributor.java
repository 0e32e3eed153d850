package io.allot.worker;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.Tables;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes table fields into the distribution hash, as the distributor would (fenced publish under the group lease). */
final class FakeDistributor {
  private final Store store;
  private final String hash;
  private final String pool;
  private final Lease lease;

  FakeDistributor(Store store, String hash, String pool) {
    this.store = store;
    this.hash = hash;
    this.pool = pool;
    this.lease = store.leadership().tryAcquire(Tables.leaseName(hash, pool), "fake-distributor", Duration.ofHours(1))
        .orElseThrow();
  }

  /** Publishes {@code member, "u1,u2", member, "", ...}; members not named lose their fields. */
  long publish(String... memberThenUnits) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 0; i < memberThenUnits.length; i += 2) {
      fields.put(memberThenUnits[i], memberThenUnits[i + 1]);
    }
    return publish(fields);
  }

  long publish(Map<String, String> fields) {
    return store.tables().publish(lease, hash, pool, fields);
  }
}
