package io.allot.store.postgres;

import io.allot.store.Store;
import io.allot.store.StoreProvider;
import io.allot.store.Stores;
import java.util.Set;

/**
 * Opens {@code postgresql://} and {@code postgres://} URIs (libpq form, see {@link PostgresUrl}) as a
 * {@link PostgresStore}; {@code allot_schema=<name>} selects the schema. Found by {@link Stores#open(String)}.
 */
public final class PostgresStoreProvider extends StoreProvider {

  @Override
  public Set<String> schemes() {
    return Set.of("postgresql", "postgres");
  }

  /**
   * Connects eagerly and creates or migrates the schema.
   *
   * @throws IllegalArgumentException if the URI is malformed: the message names it, without the password
   * @throws io.allot.store.StoreUnavailableException if the server cannot be reached
   */
  @Override
  public Store open(String uri) {
    PostgresStoreConfig config;
    try {
      config = PostgresStoreConfig.builder(uri).build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("store '" + PostgresUrl.redactSecretParameters(Stores.redact(uri)) + "': "
          + e.getMessage(), e);
    }
    return PostgresStore.connect(config);
  }

  @Override
  public String usage() {
    return "postgresql://[user[:password]@]host[:port][,host2[:port]...]/db[?allot_schema=name&sslmode=...]";
  }
}
