package io.allot.store;

import java.util.Set;

/**
 * Opens stores for some URI schemes. Implementations are found with {@link java.util.ServiceLoader} (a
 * {@code META-INF/services/io.allot.store.StoreProvider} file naming the class) and chosen by {@link Stores} by the
 * URI's scheme; among providers of one scheme the highest {@link #priority()} wins.
 */
public abstract class StoreProvider {

  /** The schemes this provider opens, lower case and without the ':', e.g. {@code redis} and {@code rediss}. */
  public abstract Set<String> schemes();

  /**
   * Opens a store. The provider parses the whole URI itself.
   *
   * @throws IllegalArgumentException if the URI is malformed, naming the part that is wrong (never the password)
   * @throws StoreUnavailableException if the store cannot be reached
   */
  public abstract Store open(String uri);

  /** The URI forms this provider accepts, for help texts, e.g. {@code redis://[:password@]host:port[/db]}. */
  public abstract String usage();

  /** Among providers of the same scheme, the highest wins; default 5 (as grpc-java's providers). */
  public int priority() {
    return 5;
  }
}
