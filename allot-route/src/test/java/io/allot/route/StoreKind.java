package io.allot.route;

import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.TestServers;
import java.util.List;

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

  /** Pools handed out and not cleaned up yet. */
  private static final java.util.Set<String> POOLS = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** A new pool name; every Redis key naming it is deleted by {@link #cleanRedis()}. */
  static String pool() {
    String p = "route-" + Long.toHexString(System.nanoTime()) + "-" + (int) (Math.random() * 1e6);
    POOLS.add(p);
    return p;
  }

  /**
   * Deletes every key of the local Redis that names a pool handed out so far (its members, counters, its tables and
   * live weights: their keys all contain the pool name), since no store role deletes a table.
   */
  static void cleanRedis() {
    if (POOLS.isEmpty()) {
      return;
    }
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(TestServers.redisUri());
    try (var c = client.connect()) {
      var cmd = c.sync();
      for (String pool : List.copyOf(POOLS)) {
        io.lettuce.core.ScanCursor cursor = io.lettuce.core.ScanCursor.INITIAL;
        do {
          var page = cmd.scan(cursor, io.lettuce.core.ScanArgs.Builder.matches("*" + pool + "*").limit(1000));
          if (!page.getKeys().isEmpty()) {
            cmd.del(page.getKeys().toArray(String[]::new));
          }
          cursor = page;
        } while (!cursor.isFinished());
        POOLS.remove(pool);
      }
    } finally {
      client.shutdown();
    }
  }

  @Override
  public void close() {
    store.close();
    if (schema != null) {
      schema.close();
    } else {
      cleanRedis();
    }
  }
}
