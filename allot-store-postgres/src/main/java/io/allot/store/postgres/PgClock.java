package io.allot.store.postgres;

import io.allot.store.StoreClock;

/** {@link StoreClock} on the server's {@code clock_timestamp()}, rounded down to the millisecond. Immutable. */
final class PgClock implements StoreClock {
  private static final String NOW = "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

  private final PgJdbc db;

  PgClock(PgJdbc db) {
    this.db = db;
  }

  @Override
  public long timeMillis() {
    return db.query("read the clock", NOW, PgJdbc.LONG);
  }
}
