package io.allot.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Opens a {@link Store} from a URI through the {@link StoreProvider}s on the class path:
 *
 * <pre>{@code
 * try (Store store = Stores.open("redis://127.0.0.1:6379")) { ... }
 * }</pre>
 *
 * Which schemes exist depends on the modules present: {@code memory:} (allot-store), {@code redis://},
 * {@code rediss://}, {@code redis-cluster://}, {@code rediss-cluster://} (allot-store-redis), {@code postgresql://},
 * {@code postgres://} (allot-store-postgres).
 */
public final class Stores {
  private Stores() {}

  /**
   * Opens the store at {@code uri}.
   *
   * @throws IllegalArgumentException if the URI is malformed or no provider serves its scheme; the message names
   *                                  the URI (without a password) and the schemes known
   * @throws StoreUnavailableException if the store cannot be reached
   */
  public static Store open(String uri) {
    Objects.requireNonNull(uri, "uri");
    String trimmed = uri.trim();
    int colon = trimmed.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("store '" + redact(trimmed) + "' is not a URI; use one of: " + forms());
    }
    String scheme = trimmed.substring(0, colon).toLowerCase(Locale.ROOT);
    StoreProvider provider = providers().get(scheme);
    if (provider == null) {
      throw new IllegalArgumentException("store '" + redact(trimmed) + "': unknown scheme '" + scheme
          + "'; use one of: " + forms());
    }
    return provider.open(trimmed);
  }

  /** The URI forms of every provider found, for help texts and error messages. */
  public static String forms() {
    List<String> out = new ArrayList<>();
    for (StoreProvider p : new LinkedHashMap<>(providers()).values()) {
      if (!out.contains(p.usage())) {
        out.add(p.usage());
      }
    }
    return String.join(", ", out);
  }

  /**
   * {@code uri} with the password of its user info replaced by {@code ***}: safe for messages and logs.
   * {@code redis://:secret@h:1} becomes {@code redis://:***@h:1}.
   */
  public static String redact(String uri) {
    if (uri == null) {
      return "null";
    }
    int start = uri.indexOf("://");
    if (start < 0) {
      return uri;
    }
    // the user info runs to the LAST '@' (a password may hold a raw '@', '/' or '?'); when something after the
    // authority holds an '@', this hides more than needed, never less
    int at = uri.lastIndexOf('@');
    if (at < start + 3) {
      return uri;
    }
    String userInfo = uri.substring(start + 3, at);
    int colon = userInfo.indexOf(':');
    if (colon < 0) {
      return uri;
    }
    return uri.substring(0, start + 3) + userInfo.substring(0, colon) + ":***" + uri.substring(at);
  }

  /** Scheme to the provider with the highest priority. */
  static Map<String, StoreProvider> providers() {
    List<StoreProvider> all = new ArrayList<>();
    ServiceLoader.load(StoreProvider.class, Stores.class.getClassLoader()).forEach(all::add);
    all.sort(Comparator.comparingInt(StoreProvider::priority).reversed()
        .thenComparing(p -> p.getClass().getName()));
    Map<String, StoreProvider> byScheme = new LinkedHashMap<>();
    for (StoreProvider p : all) {
      for (String s : p.schemes()) {
        byScheme.putIfAbsent(s.toLowerCase(Locale.ROOT), p);
      }
    }
    return byScheme;
  }
}
