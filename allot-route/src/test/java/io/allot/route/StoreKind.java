package io.allot.route;

import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.TestServers;

/** A real store for one test: Redis (random pool names) or PostgreSQL (a schema of the test's own). */
final class StoreKind implements AutoCloseable {
  final Store store;
  final String uri;
  private final PostgresSchema schema;

  private StoreKind(Store store, String uri, PostgresSchema schema) {
    this.store = store;
    this.uri = uri;
    this.schema = schema;
  }

  static StoreKind open(String kind) {
    if (kind.equals("redis")) {
      String uri = TestServers.redisUri();
      return new StoreKind(Stores.open(uri), uri, null);
    }
    PostgresSchema schema = PostgresSchema.create("allot_route");
    return new StoreKind(Stores.open(schema.uri()), schema.uri(), schema);
  }

  static String pool() {
    return "route-" + Long.toHexString(System.nanoTime()) + "-" + (int) (Math.random() * 1e6);
  }

  @Override
  public void close() {
    store.close();
    if (schema != null) {
      schema.close();
    }
  }
}
