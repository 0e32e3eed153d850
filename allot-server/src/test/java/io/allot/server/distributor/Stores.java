package io.allot.server.distributor;

import io.allot.store.Store;
import io.allot.store.redis.RedisStore;
import io.allot.store.redis.RedisStoreConfig;
import java.time.Duration;

final class Stores {
  private Stores() {}

  static Store redis(String address) {
    return RedisStore.connect(
        RedisStoreConfig.builder(address).commandTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500)).build());
  }
}
