package io.allot.store.spi;

import io.allot.store.Lease;
import io.allot.store.Tables;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** For store implementations: the argument checks of {@link Tables#publish}, the same in every store. */
public final class PublishArgs {
  private PublishArgs() {}

  /**
   * Checks that {@code lease} is named {@link Tables#leaseName(String, String) leaseName(tableKey, pool)} and that no
   * field or value is null.
   *
   * @return a copy of {@code fields}, in their order
   * @throws IllegalArgumentException naming the lease the publication needs
   */
  public static Map<String, String> check(Lease lease, String tableKey, String pool, Map<String, String> fields) {
    Objects.requireNonNull(lease, "lease");
    String expectedName = Tables.leaseName(tableKey, pool);
    if (!lease.name().equals(expectedName)) {
      throw new IllegalArgumentException("publishing pool '" + pool + "' into '" + tableKey
          + "' needs the lease named '" + expectedName + "', not '" + lease.name() + "'");
    }
    Map<String, String> copy = new LinkedHashMap<>(fields.size() * 4 / 3 + 1);
    fields.forEach((f, v) -> copy.put(Objects.requireNonNull(f, "field"), Objects.requireNonNull(v, "value")));
    return copy;
  }
}
