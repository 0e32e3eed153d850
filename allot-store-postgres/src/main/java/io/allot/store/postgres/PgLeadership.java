package io.allot.store.postgres;

import io.allot.store.Leadership;
import io.allot.store.Lease;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Leadership} on the table {@code leases}: one row per name, kept forever so tokens only grow (each is larger
 * than the last and than the store time in µs, {@code clock_micros()}, so a row rolled back or lost never makes a
 * token come again); {@code holder} null = released. Every operation is one plain statement deciding
 * expiry by {@code clock_timestamp()}. Immutable.
 */
final class PgLeadership implements Leadership {
  private final PgJdbc db;
  private final String tryAcquire;
  private final String renew;
  private final String release;
  private final String current;

  /** {@code s}: the quoted schema. */
  PgLeadership(PgJdbc db, String s) {
    this.db = db;
    tryAcquire = "INSERT INTO " + s + ".leases AS l (name, last_token, holder, expires_at) "
        + "VALUES (?, " + s + ".clock_micros() + 1, ?, clock_timestamp() + ? * interval '1 millisecond') "
        + "ON CONFLICT (name) DO UPDATE SET last_token = greatest(l.last_token + 1, " + s + ".clock_micros() + 1), "
        + "holder = excluded.holder, "
        + "expires_at = excluded.expires_at "
        + "WHERE l.holder IS NULL OR l.expires_at <= clock_timestamp() "
        + "RETURNING l.last_token";
    renew = "UPDATE " + s + ".leases SET expires_at = clock_timestamp() + ? * interval '1 millisecond' "
        + "WHERE name = ? AND holder = ? AND last_token = ? AND expires_at > clock_timestamp()";
    release = "UPDATE " + s + ".leases SET holder = NULL, expires_at = NULL "
        + "WHERE name = ? AND holder = ? AND last_token = ?";
    current = "SELECT holder, last_token FROM " + s + ".leases "
        + "WHERE name = ? AND holder IS NOT NULL AND expires_at > clock_timestamp()";
  }

  @Override
  public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holder, "holder");
    long ttlMs = ttlMillis(ttl);
    return db.query("acquire lease " + name, tryAcquire,
        rs -> rs.next() ? Optional.of(new Lease(name, holder, rs.getLong(1))) : Optional.<Lease>empty(),
        name, holder, ttlMs);
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    Objects.requireNonNull(lease, "lease");
    long ttlMs = ttlMillis(ttl);
    return db.update("renew lease " + lease.name(), renew, ttlMs, lease.name(), lease.holder(), lease.token()) == 1;
  }

  @Override
  public void release(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    db.update("release lease " + lease.name(), release, lease.name(), lease.holder(), lease.token());
  }

  @Override
  public Optional<Lease> current(String name) {
    Objects.requireNonNull(name, "name");
    return db.query("read lease " + name, current,
        rs -> rs.next() ? Optional.of(new Lease(name, rs.getString(1), rs.getLong(2))) : Optional.<Lease>empty(),
        name);
  }

  /**
   * {@code ttl} in whole milliseconds.
   *
   * @throws IllegalArgumentException if it is under 1 ms
   */
  static long ttlMillis(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1 ms but was " + ttl);
    }
    return ttl.toMillis();
  }
}
