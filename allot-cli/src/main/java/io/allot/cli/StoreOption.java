package io.allot.cli;

import io.allot.store.Safety;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Stores;
import io.allot.store.spi.OnceWarnings;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * The one store option of every command and benchmark that opens a store (a picocli mixin): {@code -store URI} or
 * {@code --store URI}, opened with {@link Stores#open(String)}; the environment variable {@code STORE} gives its
 * default ({@link #envDefault}), else the command's own. The bare word {@code memory} means {@code memory:}; the
 * bare word {@code redis} means the local Redis ({@code allot server}: the Redis its {@code -redis-*} flags name). A
 * URI that is bad or names a store that cannot be reached is bad input: one line naming it, never its password.
 */
public final class StoreOption {
  /** The environment variable that gives the store when {@code -store} is not given. */
  public static final String ENV = "STORE";

  /** The bare word for the local Redis (the default of the {@code allot} commands). */
  public static final String REDIS = "redis";

  // set by picocli while parsing, read after: one thread
  @Option(names = {"-store", "--store"}, paramLabel = "URI",
      description = "The store: memory:, redis://[:password@]host:port, rediss://..., redis-cluster://h1:p1,h2:p2, "
          + "postgresql://user:pass@host:port/db; the bare word redis is the local Redis (allot server: the one its "
          + "-redis-* flags name). Env " + ENV + ". Default ${DEFAULT-VALUE}.")
  private String given;

  /** The option with the local Redis ({@link #REDIS}) as its default. */
  public StoreOption() {
    this(REDIS);
  }

  /**
   * The option with its own default.
   *
   * @param defaultUri the store URI (or bare word) when neither {@code -store} nor {@code STORE} gives one
   */
  public StoreOption(String defaultUri) {
    this.given = defaultUri;
  }

  /**
   * The store URI this option names: {@code memory:} for the bare word {@code memory}; for the bare word
   * {@code redis}, {@code redis://127.0.0.1:6379} with {@code clientName}; else as given.
   *
   * @param clientName the Redis client name of the bare word {@code redis} (null: none)
   */
  public String uri(String clientName) {
    return uri(clientName, null);
  }

  /** {@link #uri(String)}, with the bare word {@code redis} meaning what {@code flags} name (null: their defaults). */
  String uri(String clientName, RedisFlags flags) {
    String s = given == null ? "" : given.trim();
    if (s.equalsIgnoreCase("memory")) {
      return "memory:";
    }
    if (!s.isEmpty() && !s.equalsIgnoreCase(REDIS)) {
      return s;
    }
    return flags != null ? flags.uri(clientName)
        : RedisFlags.redisUri(List.of("127.0.0.1:6379"), "", false, List.of(), clientName);
  }

  /** True if this option names the in-memory store (which lives in one process only). */
  public boolean isMemory() {
    return isMemory(uri(null));
  }

  /**
   * A default value provider that gives this option the value of {@code STORE} in {@code env} (when set and not
   * empty), for every command of {@code root}'s tree (set it before any command's own provider).
   */
  public static void envDefault(CommandLine root, Function<String, String> env) {
    root.setDefaultValueProvider(arg -> arg instanceof OptionSpec o && o.longestName().equals("--store")
        ? blankToNull(env.apply(ENV)) : null);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  /** True if {@code uri} names the in-memory store (which lives in this process only). */
  public static boolean isMemory(String uri) {
    return uri.toLowerCase(Locale.ROOT).startsWith("memory:");
  }

  /**
   * Opens the store. A bad URI or a store that cannot be reached is bad input (exit 2): one line naming the URI,
   * never its password.
   *
   * @param clientName the Redis client name of the bare word {@code redis} (null: none)
   */
  public Store open(String clientName) {
    return openUri(uri(clientName));
  }

  /**
   * Opens the store {@code uri} ({@link Stores#open(String)}).
   *
   * @throws BadInputException if the URI is bad or the store cannot be reached: one line naming the URI, never its
   *     password
   */
  public static Store openUri(String uri) {
    try {
      return Stores.open(uri);
    } catch (IllegalArgumentException | StoreUnavailableException | UncheckedIOException e) {
      throw new BadInputException(openFailure(uri, e));
    }
  }

  /**
   * Opens the store ({@link #open(String)}) and prints what its connect-time check found ({@link Safety#findings()}:
   * durability settings that can lose ownership, each naming the setting and the consequence) to {@code err}, one
   * line each: {@code allot: WARN store <where>: <finding>}; each finding once per process, so one the store has
   * logged already ({@link OnceWarnings}) is not printed again.
   */
  public Store open(String clientName, PrintWriter err) {
    return warn(open(clientName), err);
  }

  /** {@link #open(String, PrintWriter)} with the bare word {@code redis} meaning what {@code flags} name. */
  Store open(String clientName, RedisFlags flags, PrintWriter err) {
    return warn(openUri(uri(clientName, flags)), err);
  }

  private static Store warn(Store s, PrintWriter err) {
    for (String finding : s.safety().findings()) {
      if (OnceWarnings.first(s.describe(), finding)) {
          err.println("allot: WARN store " + s.describe() + ": " + finding);
      }
    }
    err.flush();
    return s;
  }

  /** One line naming the (redacted) URI and why it could not be opened, with no password in it. */
  static String openFailure(String uri, RuntimeException e) {
    String shown = redact(uri);
    String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    for (String secret : passwords(uri)) {
      why = why.replace(secret, "***");
    }
    why = why.replaceAll("\\s*\\R\\s*", " ").strip();
    String prefix = e instanceof StoreUnavailableException ? "cannot reach store '" : "bad store '";
    return why.contains(shown) ? why : prefix + shown + "': " + why;
  }

  /**
   * {@link Stores#redact}, and the whole user info hidden when it holds several '@' (a password written with a raw
   * '@', which a store may read up to the last '@').
   */
  static String redact(String uri) {
    int start = uri.indexOf("://");
    int first = start < 0 ? -1 : uri.indexOf('@', start + 3);
    int last = uri.lastIndexOf('@');
    if (first >= 0 && last > first) {
      return uri.substring(0, start + 3) + "***" + uri.substring(last);
    }
    return Stores.redact(uri);
  }

  /**
   * Every form the URI's password may take in a message: as written and percent-decoded, with the user info read up
   * to the first and up to the last '@'; longest first.
   */
  private static List<String> passwords(String uri) {
    Set<String> out = new HashSet<>();
    int start = uri.indexOf("://");
    if (start < 0) {
      return List.of();
    }
    for (int at : new int[] {uri.indexOf('@', start + 3), uri.lastIndexOf('@')}) {
      int colon = at < 0 ? -1 : uri.indexOf(':', start + 3);
      if (colon < 0 || colon >= at) {
        continue;
      }
      String written = uri.substring(colon + 1, at);
      out.add(written);
      try {
        out.add(URLDecoder.decode(written.replace("+", "%2B"), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException malformed) {
        // not percent-encoded: the form as written is all there is
      }
    }
    out.remove("");
    return out.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
  }
}
