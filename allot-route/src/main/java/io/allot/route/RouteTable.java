package io.allot.route;

import io.allot.store.Tables;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A published assignment table turned around for routing: unit to owner (member id). Immutable.
 *
 * @param tableKey the table key it was read from
 * @param epoch    the table's epoch when read (0: never published)
 * @param owners   unit to member id
 */
public record RouteTable(String tableKey, long epoch, Map<String, String> owners) {

  /** The table key the distributor publishes to by default (its {@code -distribution-namespace}). */
  public static final String DEFAULT_TABLE_KEY = "sys-matching-table";

  public RouteTable {
    Objects.requireNonNull(tableKey, "tableKey");
    owners = Collections.unmodifiableMap(new HashMap<>(owners));
  }

  /** An empty table of {@code tableKey}. */
  public static RouteTable empty(String tableKey) {
    return new RouteTable(tableKey, 0, Map.of());
  }

  /**
   * Reads {@code tableKey} (epoch first, so the table is at least that new). A unit listed under two members (which a
   * table being rewritten by two groups may show) goes to the member first in byte order, the same on every client.
   */
  public static RouteTable read(Tables tables, String tableKey) {
    long epoch = tables.epoch(tableKey);
    return fromFields(tableKey, epoch, tables.read(tableKey));
  }

  /** Builds the table from its fields: member to {@code "u1,u2,..."}. */
  public static RouteTable fromFields(String tableKey, long epoch, Map<String, String> fields) {
    Map<String, String> owners = new HashMap<>();
    fields.forEach((member, units) -> {
      if (units == null || units.isEmpty()) {
        return;
      }
      for (String u : units.split(",", -1)) {
        if (!u.isEmpty()) {
          owners.merge(u, member, (a, b) -> a.compareTo(b) <= 0 ? a : b);
        }
      }
    });
    return new RouteTable(tableKey, epoch, owners);
  }

  /** The owner of {@code unit}, or null if the table does not list it. */
  public String ownerOf(String unit) {
    return unit == null ? null : owners.get(unit);
  }
}
