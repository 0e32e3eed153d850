package io.allot.route;

import io.allot.store.Store;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * Resolves {@code allot://<pool>} (also {@code allot:///<pool>}; optionally {@code ?table=<tableKey>}, default
 * {@value RouteTable#DEFAULT_TABLE_KEY}) to the pool's live members, registered through {@code META-INF/services}.
 *
 * <p>The store is, in this order: the channel's {@link #STORE} argument ({@code
 * ManagedChannelBuilder.setNameResolverArg(AllotNameResolverProvider.STORE, store)}; the channel does not close it),
 * its {@link #STORE_URI} argument, the system property {@code allot.store}, or the environment variable
 * {@code ALLOT_STORE} (a URI for {@link io.allot.store.Stores#open}; the resolver opens the store and closes it on
 * shutdown). A malformed target or a missing store is not thrown at channel build: the resolver reports an error
 * status naming it, which every call then fails with.
 */
public final class AllotNameResolverProvider extends NameResolverProvider {
  /** The URI scheme: {@code allot}. */
  public static final String SCHEME = "allot";

  /** Channel argument: the store to read membership from (owned by the caller). */
  public static final NameResolver.Args.Key<Store> STORE = NameResolver.Args.Key.create("allot.store");
  /** Channel argument: the URI of the store to open (owned by the resolver). */
  public static final NameResolver.Args.Key<String> STORE_URI = NameResolver.Args.Key.create("allot.store-uri");
  /** Channel argument: the periodic sync interval, the fallback to notifications (default 5 s). */
  public static final NameResolver.Args.Key<Duration> SYNC_INTERVAL =
      NameResolver.Args.Key.create("allot.sync-interval");
  /**
   * Channel argument: {@code true} gives each member's address its own authority, the member id ({@code host:port}),
   * instead of the pool name: over TLS each member's certificate is then checked against the address it was dialed
   * at (certificates naming the host), not against the pool name (certificates naming the service). Default false.
   */
  public static final NameResolver.Args.Key<Boolean> MEMBER_AUTHORITY =
      NameResolver.Args.Key.create("allot.member-authority");

  /** The default periodic sync interval. */
  public static final Duration DEFAULT_SYNC_INTERVAL = Duration.ofSeconds(5);

  private final Function<String, String> env;

  /** The provider {@link java.util.ServiceLoader} makes: reads the process environment. */
  public AllotNameResolverProvider() {
    this(System::getenv);
  }

  AllotNameResolverProvider(Function<String, String> env) {
    this.env = env;
  }

  /** A parsed {@code allot://} target. */
  record Target(String text, String pool, String tableKey) {}

  /**
   * Parses an {@code allot://} target.
   *
   * @throws IllegalArgumentException naming the target and what is wrong
   */
  static Target parse(URI uri) {
    String text = uri.toString();
    if (!SCHEME.equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException("target '" + text + "' is not an allot:// target");
    }
    String pool = uri.getAuthority();
    String path = uri.getPath();
    if (pool == null || pool.isEmpty()) {
      pool = path == null ? "" : path.replaceFirst("^/", "");
    } else if (path != null && !path.isEmpty() && !path.equals("/")) {
      throw new IllegalArgumentException("target '" + text + "': expected allot://<pool>[?table=<tableKey>], "
          + "found a path '" + path + "'");
    }
    if (pool.isEmpty()) {
      throw new IllegalArgumentException("target '" + text + "' names no pool: use allot://<pool>");
    }
    String table = RouteTable.DEFAULT_TABLE_KEY;
    String query = uri.getRawQuery();
    if (query != null && !query.isEmpty()) {
      for (String pair : query.split("&")) {
        int eq = pair.indexOf('=');
        String k = eq < 0 ? pair : pair.substring(0, eq);
        String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        if (!k.equals("table")) {
          throw new IllegalArgumentException("target '" + text + "': unknown parameter '" + k + "'; known: table");
        }
        if (v.isEmpty()) {
          throw new IllegalArgumentException("target '" + text + "': table must not be empty");
        }
        table = v;
      }
    }
    return new Target(text, pool, table);
  }

  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    if (!SCHEME.equalsIgnoreCase(targetUri.getScheme())) {
      return null;
    }
    Target target;
    try {
      target = parse(targetUri);
    } catch (IllegalArgumentException e) {
      return new FailingResolver(targetUri.toString(), Status.INVALID_ARGUMENT.withDescription("allot: " + e.getMessage()));
    }
    Store store = args.getArg(STORE);
    String uri = args.getArg(STORE_URI);
    if (uri == null) {
      uri = System.getProperty("allot.store");
    }
    if (uri == null) {
      uri = env.apply("ALLOT_STORE");
    }
    if (store == null && (uri == null || uri.isBlank())) {
      return new FailingResolver(target.text(), Status.FAILED_PRECONDITION.withDescription("allot: target '"
          + target.text() + "' has no store: set the channel argument AllotNameResolverProvider.STORE or STORE_URI, "
          + "the system property allot.store or the environment variable ALLOT_STORE"));
    }
    Duration interval = args.getArg(SYNC_INTERVAL);
    AllotNameResolver r = new AllotNameResolver(target, store, store == null ? uri : null,
        interval == null ? DEFAULT_SYNC_INTERVAL : interval, args.getSynchronizationContext());
    r.memberAuthority = Boolean.TRUE.equals(args.getArg(MEMBER_AUTHORITY));
    return r;
  }

  @Override
  public String getDefaultScheme() {
    return SCHEME;
  }

  @Override
  protected boolean isAvailable() {
    return true;
  }

  @Override
  protected int priority() {
    return 5;
  }

  @Override
  public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }

  /** A resolver for a target that cannot work: reports its error status at start, and again on refresh. */
  static final class FailingResolver extends NameResolver {
    private final String target;
    private final Status error;
    /** Set at start; read by refresh (both on the channel's synchronization context). */
    private Listener2 listener;

    FailingResolver(String target, Status error) {
      this.target = target;
      this.error = error;
    }

    @Override
    public String getServiceAuthority() {
      return "allot";
    }

    @Override
    public void start(Listener2 listener) {
      this.listener = listener;
      listener.onError(error);
    }

    @Override
    public void refresh() {
      if (listener != null) {
        listener.onError(error);
      }
    }

    @Override
    public void shutdown() {}

    @Override
    public String toString() {
      return "FailingResolver[" + target + ": " + error + "]";
    }
  }
}
