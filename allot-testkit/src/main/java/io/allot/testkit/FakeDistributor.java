package io.allot.testkit;

import io.allot.store.Lease;
import io.allot.store.Store;
import io.allot.store.Tables;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes table fields into the distribution hash as the distributor would (a fenced publish under the pool's table
 * lease), so a test can tell members what to run without running a distributor.
 */
public final class FakeDistributor {
  private final Store store;
  private final String hash;
  private final String pool;
  private final Lease lease;

  /** Takes the table lease of {@code pool} in {@code hash} for an hour. */
  public FakeDistributor(Store store, String hash, String pool) {
    this.store = store;
    this.hash = hash;
    this.pool = pool;
    this.lease = store.leadership().tryAcquire(Tables.leaseName(hash, pool), "fake-distributor", Duration.ofHours(1))
        .orElseThrow();
  }

  /** Publishes {@code member, "u1,u2", member, "", ...}; members not named lose their fields. */
  public long publish(String... memberThenUnits) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 0; i < memberThenUnits.length; i += 2) {
      fields.put(memberThenUnits[i], memberThenUnits[i + 1]);
    }
    return publish(fields);
  }

  /** Publishes {@code fields} (member id to {@code "u1,u2"}); members not named lose their fields. */
  public long publish(Map<String, String> fields) {
    return store.tables().publish(lease, hash, pool, fields);
  }
}
