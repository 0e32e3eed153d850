package io.allot.cli;

import io.allot.store.Store;

/** Opens the PostgreSQL store (kept apart so the rest does not load its classes). */
final class PostgresOpener {
  private PostgresOpener() {}

  static Store open(String url) {
    try {
      return io.allot.store.postgres.PostgresStore.connect(url);
    } catch (RuntimeException e) {
      throw new BadInputException("cannot connect to PostgreSQL: " + e.getMessage());
    }
  }
}
