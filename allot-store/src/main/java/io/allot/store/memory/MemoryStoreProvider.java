package io.allot.store.memory;

import io.allot.store.Store;
import io.allot.store.StoreProvider;
import java.util.Set;

/** Opens {@code memory:}: a new, empty {@link MemoryStore} in this JVM. */
public final class MemoryStoreProvider extends StoreProvider {

  @Override
  public Set<String> schemes() {
    return Set.of("memory");
  }

  @Override
  public Store open(String uri) {
    if (!uri.equalsIgnoreCase("memory:")) {
      throw new IllegalArgumentException("store '" + uri + "': the in-memory store takes no address; use memory:");
    }
    return new MemoryStore();
  }

  @Override
  public String usage() {
    return "memory:";
  }
}
