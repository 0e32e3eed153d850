package io.allot.store.redis;

import io.allot.store.Store;
import io.allot.store.StoreProvider;
import java.util.Set;

/**
 * Opens {@code redis://}, {@code rediss://} (TLS), {@code redis-cluster://} and {@code rediss-cluster://} URIs as
 * {@link RedisStore}s; the grammar and parameters are those of {@link RedisStoreConfig#fromUri(String)}.
 */
public final class RedisStoreProvider extends StoreProvider {

  @Override
  public Set<String> schemes() {
    return Set.of("redis", "rediss", "redis-cluster", "rediss-cluster");
  }

  @Override
  public Store open(String uri) {
    return RedisStore.connect(RedisStoreConfig.fromUri(uri));
  }

  @Override
  public String usage() {
    return RedisUri.USAGE;
  }
}
