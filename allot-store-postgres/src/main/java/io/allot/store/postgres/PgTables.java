package io.allot.store.postgres;

import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.SeedKeys;
import io.allot.store.Tables;
import io.allot.store.Topic;
import io.allot.store.spi.HashTables;
import io.allot.store.spi.PublishArgs;
import io.allot.store.spi.Publications;
import io.allot.store.spi.Publications.Publication;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Tables} on the hash tables of {@link PgSeedKeys} (fields with their {@code writer_group}), {@code epochs}
 * and {@code publish_marks}. A publication is one function call: it locks the lease row, checks holder, token and
 * expiry, writes the pool's fields, bumps the epoch, records it as the pool's mark and NOTIFYs it, in one
 * transaction.
 *
 * <p><b>Incremental publication.</b> {@link #publish} keeps the contract of a full publication ({@code publish}),
 * but when this client published the same pool under the same lease before, it sends only the fields whose value
 * changed and the fields dropped ({@code publish_changes}). That applies only if the pool's mark in the database is
 * the epoch of that previous publication and the pool still owns as many fields as it wrote then; otherwise nothing
 * changes and the full table is sent. A publication that failed leaves no previous one behind, so the next is full.
 * Either way only rows whose value changes are written. Thread-safe.
 */
final class PgTables extends HashTables {
  private final PgJdbc db;
  private final PgChannels channels;
  private final String publish;
  private final String publishChanges;
  private final String epoch;
  /**
   * The last successful publication of each (table key, pool) by this client, removed while a publication of it is
   * in flight. Thread-safe (Publications).
   */
  private final Publications previous = new Publications();

  /** {@code s}: the quoted schema; {@code seedKeys}: where tables are read (a table is a hash). */
  PgTables(PgJdbc db, PgChannels channels, SeedKeys seedKeys, String s) {
    super(seedKeys);
    this.db = db;
    this.channels = channels;
    publish = "SELECT o_epoch, o_holder, o_token FROM " + s + ".publish(?, ?, ?, ?, ?, ?, ?, ?, ?)";
    publishChanges = "SELECT o_epoch, o_holder, o_token, o_stale FROM " + s
        + ".publish_changes(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    epoch = "SELECT epoch FROM " + s + ".epochs WHERE hash_key = ?";
  }

  /** What {@code publish} returned: the new epoch, or (null and) the current holder; stale: publish in full. */
  private record Outcome(Long epoch, String holder, long token, boolean stale) {}

  @Override
  public long publish(Lease lease, String tableKey, String pool, Map<String, String> fields) {
    Map<String, String> snapshot = PublishArgs.check(lease, tableKey, pool, fields);
    PgChannels.Note note = channels.noteForLong(Topic.table(tableKey));
    Publication prev = previous.take(lease, tableKey, pool);
    Outcome out = null;
    if (prev != null) {
      out = publishChanges(lease, tableKey, pool, note, prev, snapshot);
    }
    if (out == null || out.stale()) {
      out = publishAll(lease, tableKey, pool, note, snapshot);
    }
    if (out.epoch() != null) {
      previous.put(lease, tableKey, pool, out.epoch(), snapshot);
      return out.epoch();
    }
    Optional<Lease> current = out.holder() == null
        ? Optional.empty()
        : Optional.of(new Lease(lease.name(), out.holder(), out.token()));
    throw new FencedException(lease, current);
  }

  private Outcome publishAll(Lease lease, String tableKey, String pool, PgChannels.Note note,
      Map<String, String> fields) {
    String[] names = new String[fields.size()];
    String[] values = new String[fields.size()];
    int i = 0;
    for (Map.Entry<String, String> e : fields.entrySet()) {
      names[i] = e.getKey();
      values[i++] = e.getValue();
    }
    return db.query("publish into " + tableKey, publish, rs -> {
      rs.next();
      long epoch = rs.getLong(1);
      return new Outcome(rs.wasNull() ? null : epoch, rs.getString(2), rs.getLong(3), false);
    }, lease.name(), lease.holder(), lease.token(), tableKey, pool, names, values, note.pgChannel(), note.payload());
  }

  private Outcome publishChanges(Lease lease, String tableKey, String pool, PgChannels.Note note, Publication prev,
      Map<String, String> fields) {
    List<String> dropped = prev.dropped(fields);
    Map<String, String> changed = prev.changed(fields);
    return db.query("publish changes into " + tableKey, publishChanges, rs -> {
      rs.next();
      long epoch = rs.getLong(1);
      Long e = rs.wasNull() ? null : epoch;
      return new Outcome(e, rs.getString(2), rs.getLong(3), rs.getBoolean(4));
    }, lease.name(), lease.holder(), lease.token(), tableKey, pool, prev.epoch(), (long) prev.fields().size(),
        dropped.toArray(new String[0]), changed.keySet().toArray(new String[0]),
        changed.values().toArray(new String[0]),
        note.pgChannel(), note.payload());
  }

  @Override
  public long epoch(String tableKey) {
    Objects.requireNonNull(tableKey, "tableKey");
    return db.query("read epoch of " + tableKey, epoch, rs -> rs.next() ? rs.getLong(1) : 0L, tableKey);
  }
}
