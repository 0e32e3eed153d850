package io.allot.store.spi;

import io.allot.store.SeedKeys;
import io.allot.store.Tables;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * For store implementations: {@link Tables} whose tables are hashes of the store's {@link SeedKeys}, read as they are
 * (the original layout, which its readers share). A store adds how it publishes and keeps the epoch. Immutable here.
 */
public abstract class HashTables implements Tables {
  private final SeedKeys hashes;

  protected HashTables(SeedKeys hashes) {
    this.hashes = Objects.requireNonNull(hashes, "hashes");
  }

  @Override
  public final Map<String, String> read(String tableKey) {
    return hashes.hash(tableKey);
  }

  @Override
  public final Optional<String> read(String tableKey, String member) {
    return Optional.ofNullable(hashes.hashField(tableKey, member));
  }
}
