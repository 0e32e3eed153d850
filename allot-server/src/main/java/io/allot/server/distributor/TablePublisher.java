package io.allot.server.distributor;

import io.allot.core.assign.TableCodec;
import io.allot.core.assign.Table;
import io.allot.store.Lease;
import io.allot.store.Tables;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a pool's table into the store, fenced by the pool's lease, when its fields changed: a table unchanged
 * since the last publication is not encoded again, and a changed one re-encodes only the changed members' fields
 * (the others keep the very strings published last, which lets a store send and write only the difference, {@link
 * Tables#publish}). Watches the epochs: one that went backwards means the store lost state. Confined to the thread
 * running the rounds.
 */
final class TablePublisher {
  private static final Logger log = LoggerFactory.getLogger(PoolDistributor.class);
  private final Tables tables;
  private final String tableKey;
  private final String pool;
  private final String storeName;
  private final PoolMetrics metrics;
  /** The fields published last (null: none this term), the table they encode, and the members they were for. */
  private Map<String, String> lastPublished;
  private Table lastTable;
  private Set<String> lastMembers;
  /** The highest epoch published, over all terms (0: none yet). */
  private long lastEpoch;

  TablePublisher(Tables tables, String tableKey, String pool, String storeName, PoolMetrics metrics) {
    this.tables = tables;
    this.tableKey = tableKey;
    this.pool = pool;
    this.storeName = storeName;
    this.metrics = metrics;
  }

  /** True if a table was published this term. */
  boolean hasPublished() {
    return lastPublished != null;
  }

  /** A new term, or none: the next publication compares with nothing and writes every field. */
  void reset() {
    lastPublished = null;
    lastTable = null;
  }

  /** True if {@code table} for {@code members} is the very table last encoded: nothing to encode or compare. */
  boolean unchanged(Table table, Set<String> members) {
    return table == lastTable && members.equals(lastMembers);
  }

  /**
   * The fields of {@code table} for {@code members} ({@link #encode}); null if they are those published last, so
   * there is nothing to publish (the table is remembered as the one they encode).
   */
  Map<String, String> changedFields(Table table, Set<String> members) {
    Map<String, String> fields = encode(table, members);
    if (fields.equals(lastPublished)) {
      lastTable = table;
      lastMembers = members;
      return null;
    }
    return fields;
  }

  /**
   * Publishes {@code fields}, the encoding of {@code table} for {@code members}, under {@code lease}.
   *
   * @return the new epoch
   * @throws io.allot.store.FencedException if the lease is not current
   */
  long publish(Lease lease, Map<String, String> fields, Table table, Set<String> members) {
    long w0 = System.nanoTime();
    long epoch = tables.publish(lease, tableKey, pool, fields);
    metrics.publish.record(Duration.ofNanos(System.nanoTime() - w0));
    lastPublished = fields;
    lastTable = table;
    lastMembers = members;
    metrics.tableChanges.increment();
    metrics.epoch.set(epoch);
    return epoch;
  }

  /**
   * Epochs only grow: one at or below the last published means the store lost state (a restart without
   * persistence, a rollback, a failover to a replica that missed writes). Warns naming the store, forgets what was
   * published and returns true: the caller forgets what it computed, so the next round publishes from scratch.
   */
  boolean lostState(long epoch) {
    boolean lost = epoch <= lastEpoch;
    if (lost) {
      metrics.lostState.increment();
      log.warn("pool={} store {} lost state: published epoch {} after epoch {}; recomputing the table from scratch",
          pool, storeName, epoch, lastEpoch);
      reset();
    }
    lastEpoch = epoch;
    return lost;
  }

  /**
   * The seed-compatible distribution hash of {@code table} for {@code members}: down (or not yet answering) members
   * are told explicitly that they have nothing. A member whose units are those last published keeps the very string
   * published then; only changed members are encoded anew.
   */
  private Map<String, String> encode(Table table, Set<String> members) {
    Map<String, String> fields = new LinkedHashMap<>();
    Map<String, String> before = lastPublished == null ? Map.of() : lastPublished;
    Table beforeTable = lastTable == null ? Table.EMPTY : lastTable;
    table.byMember().forEach((m, list) -> {
      String old = before.get(m);
      List<String> oldList = beforeTable.unitsOf(m);
      fields.put(m, old != null && (oldList == list || oldList.equals(list)) ? old : TableCodec.encode(list));
    });
    for (String m : members) {
      if (!fields.containsKey(m)) {
        String old = before.get(m);
        fields.put(m, old != null && old.isEmpty() ? old : "");
      }
    }
    return fields;
  }
}
