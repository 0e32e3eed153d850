package io.allot.route;

import io.allot.core.assign.TableCodec;
import io.allot.store.Tables;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A published assignment table turned around for routing: unit to owner (member id). Immutable. Built once per
 * table read; an owner lookup is one hash lookup giving the owner's index among the table's members, which pickers
 * map to a pick result with an array read.
 */
public final class RouteTable {

  /** The table key the distributor publishes to by default (its {@code -distribution-namespace}). */
  public static final String DEFAULT_TABLE_KEY = "sys-matching-table";

  private final String tableKey;
  private final long epoch;
  /** Unit to the index of its owner in {@link #members}. */
  private final Map<String, Integer> unitOwner;
  /** The owners, sorted. */
  private final String[] members;
  /** A hash of the whole content, so two reads of the same table compare cheaply. */
  private final long contentHash;

  /**
   * @param tableKey the table key it was read from
   * @param epoch    the table's epoch when read (0: never published)
   * @param owners   unit to member id
   */
  public RouteTable(String tableKey, long epoch, Map<String, String> owners) {
    this.tableKey = Objects.requireNonNull(tableKey, "tableKey");
    this.epoch = epoch;
    TreeMap<String, Integer> index = new TreeMap<>();
    for (String m : owners.values()) {
      index.putIfAbsent(m, 0);
    }
    this.members = index.keySet().toArray(String[]::new);
    for (int i = 0; i < members.length; i++) {
      index.put(members[i], i);
    }
    Map<String, Integer> unitOwner = new HashMap<>(owners.size() * 4 / 3 + 1);
    long h = epoch;
    for (Map.Entry<String, String> e : owners.entrySet()) {
      Integer i = index.get(e.getValue());
      unitOwner.put(e.getKey(), i);
      h += e.getKey().hashCode() * 31L ^ e.getValue().hashCode();
    }
    this.unitOwner = unitOwner;
    this.contentHash = h;
  }

  /** An empty table of {@code tableKey}. */
  public static RouteTable empty(String tableKey) {
    return new RouteTable(tableKey, 0, Map.of());
  }

  /**
   * Reads {@code tableKey} (epoch first, so the table is at least that new) through {@link Tables#units(String)}. A
   * unit listed under two members (which a table being rewritten by two pools may show) goes to the member first in
   * byte order ({@link TableCodec#withoutDuplicates}), the same on every client and as the distributor reads it.
   */
  public static RouteTable read(Tables tables, String tableKey) {
    long epoch = tables.epoch(tableKey);
    return fromUnits(tableKey, epoch, tables.units(tableKey));
  }

  /** Builds the table from its decoded fields: member to units, as {@link Tables#units(String)} reads them. */
  public static RouteTable fromUnits(String tableKey, long epoch, Map<String, List<String>> units) {
    Map<String, String> owners = new HashMap<>();
    TableCodec.withoutDuplicates(units, duplicate -> { }).forEach((member, list) -> {
      for (String u : list) {
        owners.put(u, member);
      }
    });
    return new RouteTable(tableKey, epoch, owners);
  }

  /** The table key it was read from. */
  public String tableKey() {
    return tableKey;
  }

  /** The table's epoch when read (0: never published). */
  public long epoch() {
    return epoch;
  }

  /** Unit to owner, as a new map (O(units)). */
  public Map<String, String> owners() {
    Map<String, String> out = new HashMap<>(unitOwner.size() * 4 / 3 + 1);
    unitOwner.forEach((u, i) -> out.put(u, members[i]));
    return Collections.unmodifiableMap(out);
  }

  /** How many units the table lists. */
  public int size() {
    return unitOwner.size();
  }

  /** The owner of {@code unit}, or null if the table does not list it. */
  public String ownerOf(String unit) {
    int i = ownerIndex(unit);
    return i < 0 ? null : members[i];
  }

  /** The index of {@code unit}'s owner in {@link #members()}, or -1. */
  int ownerIndex(String unit) {
    if (unit == null) {
      return -1;
    }
    Integer i = unitOwner.get(unit);
    return i == null ? -1 : i;
  }

  /** Every owner the table names, sorted. */
  List<String> members() {
    return Collections.unmodifiableList(new ArrayList<>(List.of(members)));
  }

  /** True if {@code o} holds the same table: same key, epoch and content. */
  @Override
  public boolean equals(Object o) {
    return o instanceof RouteTable t && t.tableKey.equals(tableKey) && t.epoch == epoch
        && t.contentHash == contentHash && t.unitOwner.size() == unitOwner.size() && t.owners().equals(owners());
  }

  @Override
  public int hashCode() {
    return Long.hashCode(contentHash) * 31 + tableKey.hashCode();
  }

  @Override
  public String toString() {
    return "RouteTable[" + tableKey + " epoch " + epoch + ", " + unitOwner.size() + " units, " + members.length
        + " owners]";
  }
}
