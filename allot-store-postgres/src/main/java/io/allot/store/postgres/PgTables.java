package io.allot.store.postgres;

import io.allot.store.FencedException;
import io.allot.store.Lease;
import io.allot.store.SeedKeys;
import io.allot.store.Tables;
import io.allot.store.Topic;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Tables} on the hash tables of {@link PgSeedKeys} (fields with their {@code writer_group}) and
 * {@code epochs}. A publication is the function {@code publish}: it locks the lease row, checks holder, token and
 * expiry, replaces the group's fields, bumps the epoch and NOTIFYs it, in one transaction. Immutable.
 */
final class PgTables implements Tables {
  private final PgJdbc db;
  private final PgChannels channels;
  private final SeedKeys seedKeys;
  private final String publish;
  private final String epoch;

  /** {@code s}: the quoted schema; {@code seedKeys}: where tables are read (a table is a hash). */
  PgTables(PgJdbc db, PgChannels channels, SeedKeys seedKeys, String s) {
    this.db = db;
    this.channels = channels;
    this.seedKeys = seedKeys;
    publish = "SELECT o_epoch, o_holder, o_token FROM " + s + ".publish(?, ?, ?, ?, ?, ?, ?, ?, ?)";
    epoch = "SELECT epoch FROM " + s + ".epochs WHERE hash_key = ?";
  }

  /** What {@code publish} returned: the new epoch, or (null and) the current holder. */
  private record Outcome(Long epoch, String holder, long token) {}

  @Override
  public long publish(Lease lease, String tableKey, String group, Map<String, String> fields) {
    Objects.requireNonNull(lease, "lease");
    String expectedName = Tables.leaseName(tableKey, group);
    if (!lease.name().equals(expectedName)) {
      throw new IllegalArgumentException("publishing group '" + group + "' into '" + tableKey
          + "' needs the lease named '" + expectedName + "', not '" + lease.name() + "'");
    }
    String[] names = new String[fields.size()];
    String[] values = new String[fields.size()];
    int i = 0;
    for (Map.Entry<String, String> e : fields.entrySet()) {
      names[i] = Objects.requireNonNull(e.getKey(), "field");
      values[i++] = Objects.requireNonNull(e.getValue(), "value");
    }
    PgChannels.Note note = channels.noteForLong(Topic.table(tableKey));
    Outcome out = db.query("publish into " + tableKey, publish, rs -> {
      rs.next();
      long epoch = rs.getLong(1);
      return new Outcome(rs.wasNull() ? null : epoch, rs.getString(2), rs.getLong(3));
    }, lease.name(), lease.holder(), lease.token(), tableKey, group, names, values, note.pgChannel(), note.payload());
    if (out.epoch() != null) {
      return out.epoch();
    }
    Optional<Lease> current = out.holder() == null
        ? Optional.empty()
        : Optional.of(new Lease(lease.name(), out.holder(), out.token()));
    throw new FencedException(lease, current);
  }

  @Override
  public long epoch(String tableKey) {
    Objects.requireNonNull(tableKey, "tableKey");
    return db.query("read epoch of " + tableKey, epoch, rs -> rs.next() ? rs.getLong(1) : 0L, tableKey);
  }

  @Override
  public Map<String, String> read(String tableKey) {
    return seedKeys.hash(tableKey);
  }

  @Override
  public Optional<String> read(String tableKey, String member) {
    return Optional.ofNullable(seedKeys.hashField(tableKey, member));
  }
}
