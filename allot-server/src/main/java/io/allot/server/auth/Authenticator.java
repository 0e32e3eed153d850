package io.allot.server.auth;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a request may do what it asks, on every channel that takes a bearer token (the REST API, the gRPC
 * task API, a job endpoint's dispatch stream). The rules:
 *
 * <ul>
 *   <li>With no token configured: reads are allowed; writes are allowed from loopback only, or from anywhere when
 *       writes were opened ({@link Builder#openWrites}).</li>
 *   <li>With tokens: a write needs a token of role {@code write}. A read needs a token of either role once some token
 *       has role {@code read} (reads are closed); else reads are open.</li>
 * </ul>
 *
 * Tokens are compared in constant time ({@link Tokens#find}). Every refusal is counted in
 * {@code allot_api_refused_total{channel, reason}} ({@value #REFUSED_METRIC}), logged at debug, and given to the
 * {@link Builder#onRefused} hook (an event history can record it). Thread-safe: immutable but for the token sources.
 */
public final class Authenticator {
  private static final Logger log = LoggerFactory.getLogger(Authenticator.class);

  /** The Micrometer name of the refusal counter (Prometheus: {@code allot_api_refused_total}). */
  public static final String REFUSED_METRIC = "allot.api.refused";

  /** The message of a write refused because there is no token and the client is not on loopback. */
  public static final String LOOPBACK_ONLY = "authorization: this server has no API token, so it accepts writes only"
      + " from loopback; give it one (-api-token, allot.api.token) and send 'Authorization: Bearer <token>', or open"
      + " writes to every address with -api-open-writes (allot.api.open-writes)";

  /** Where a request came in; its name is the metric's {@code channel} tag. */
  public enum Channel {
    /** The REST API under {@code /api/v1}. */
    REST("the header 'Authorization: Bearer <token>'"),
    /** The gRPC task API {@code allot.tasks.v1.Tasks}. */
    GRPC("the metadata 'authorization: Bearer <token>'"),
    /** A job endpoint's dispatch stream. */
    DISPATCH("the metadata 'authorization: Bearer <token>' (the dispatcher's -endpoint-token)");

    private final String carrier;

    Channel(String carrier) {
      this.carrier = carrier;
    }

    /** The tag value: {@code rest}, {@code grpc}, {@code dispatch}. */
    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Why a request was refused; its name is the metric's {@code reason} tag. */
  public enum Reason {
    /** No bearer token was sent (401 / UNAUTHENTICATED). */
    MISSING,
    /** The token sent is none of the configured ones (401 / UNAUTHENTICATED). */
    UNKNOWN,
    /** The token's role does not allow it, e.g. a read token writing (403 / PERMISSION_DENIED). */
    ROLE,
    /** No token is configured and the client is not on loopback (403 / PERMISSION_DENIED). */
    LOOPBACK;

    /** The tag value. */
    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the answer is "who are you?" (401) rather than "not you" (403). */
    public boolean unauthenticated() {
      return this == MISSING || this == UNKNOWN;
    }
  }

  /**
   * A decision: allowed (with the token's name, or null without one), or refused with the reason and a message
   * naming what to send.
   */
  public record Decision(boolean allowed, String who, Reason reason, String message) {
    static final Decision ANONYMOUS = new Decision(true, null, null, null);
  }

  /** A refused request, as the {@link Builder#onRefused} hook sees it. */
  public record Refusal(Channel channel, Role needed, Reason reason, String message, String who, InetAddress remote) {}

  private final List<Supplier<Tokens>> sources;
  private final boolean openWrites;
  private final Predicate<InetAddress> loopback;
  private final MeterRegistry registry;
  private final Consumer<Refusal> onRefused;

  private Authenticator(Builder b) {
    this.sources = List.copyOf(b.sources);
    this.openWrites = b.openWrites;
    this.loopback = b.loopback;
    this.registry = b.registry;
    this.onRefused = b.onRefused;
  }

  /** A builder: no tokens, writes from loopback only. */
  public static Builder builder() {
    return new Builder();
  }

  /** The tokens in force now (every source's, reloaded if changed). */
  public Tokens tokens() {
    Tokens t = Tokens.empty();
    for (Supplier<Tokens> s : sources) {
      t = t.and(s.get());
    }
    return t;
  }

  /**
   * Whether a request on {@code channel} may do what {@code needed} asks.
   *
   * @param authorization the {@code Authorization} header or metadata as sent, or null
   * @param remote        the client's address, or null if unknown (then not loopback)
   */
  public Decision check(Channel channel, Role needed, String authorization, InetAddress remote) {
    Tokens tokens = tokens();
    String what = channel == Channel.DISPATCH ? "dispatch streams" : needed == Role.WRITE ? "writes" : "reads";
    if (tokens.isEmpty()) {
      if (needed == Role.READ || openWrites || (remote != null && loopback.test(remote))) {
        return Decision.ANONYMOUS;
      }
      return refuse(channel, needed, Reason.LOOPBACK, LOOPBACK_ONLY, null, remote);
    }
    if (needed == Role.READ && !tokens.has(Role.READ)) {
      return Decision.ANONYMOUS;
    }
    String presented = bearer(authorization);
    if (presented == null) {
      return refuse(channel, needed, Reason.MISSING, "authorization: " + what + " need " + channel.carrier, null,
          remote);
    }
    Tokens.Token t = tokens.find(presented).orElse(null);
    if (t == null) {
      return refuse(channel, needed, Reason.UNKNOWN, "authorization: wrong bearer token", null, remote);
    }
    if (!t.role().allows(needed)) {
      return refuse(channel, needed, Reason.ROLE, "authorization: token '" + t.name() + "' has role "
          + t.role().label() + "; " + what + " need role " + needed.label(), t.name(), remote);
    }
    return new Decision(true, t.name(), null, null);
  }

  /** One line on who may read and write, for the start-up log. */
  public String describe() {
    Tokens t = tokens();
    if (t.isEmpty()) {
      return openWrites
          ? "writes are OPEN to anyone who reaches the port (-api-open-writes; set -api-token to close them)"
          : "no API token: writes only from loopback (set -api-token, or -api-open-writes to accept them from "
              + "anywhere)";
    }
    int n = t.all().size();
    return "writes need the bearer token" + (t.has(Role.READ) ? "; reads need one too (role read or write)" : "")
        + (n > 1 ? " (" + n + " tokens)" : "");
  }

  /** Whether a token is configured now. */
  public boolean hasTokens() {
    return !tokens().isEmpty();
  }

  /** Whether writes without a token are accepted from every address. */
  public boolean openWrites() {
    return openWrites;
  }

  /** The token of an {@code Authorization} value {@code Bearer <token>} (scheme in any case), or null. */
  static String bearer(String authorization) {
    String prefix = "Bearer ";
    if (authorization == null || !authorization.regionMatches(true, 0, prefix, 0, prefix.length())) {
      return null;
    }
    String t = authorization.substring(prefix.length()).trim();
    return t.isEmpty() ? null : t;
  }

  private Decision refuse(Channel channel, Role needed, Reason reason, String message, String who,
      InetAddress remote) {
    if (registry != null) {
      Counter.builder(REFUSED_METRIC).description("API requests refused by the token check")
          .tag("channel", channel.tag()).tag("reason", reason.tag()).register(registry).increment();
    }
    log.debug("{} {} refused ({}) from {}", channel.tag(), needed.label(), reason.tag(), remote);
    try {
      onRefused.accept(new Refusal(channel, needed, reason, message, who, remote));
    } catch (RuntimeException e) {
      log.warn("the refusal hook failed", e);
    }
    return new Decision(false, who, reason, message);
  }

  /** Settings of an {@link Authenticator}. */
  public static final class Builder {
    private final List<Supplier<Tokens>> sources = new ArrayList<>();
    private boolean openWrites;
    private Predicate<InetAddress> loopback = InetAddress::isLoopbackAddress;
    private MeterRegistry registry;
    private Consumer<Refusal> onRefused = r -> { };

    private Builder() {}

    /** Adds fixed tokens. */
    public Builder tokens(Tokens tokens) {
      Objects.requireNonNull(tokens, "tokens");
      sources.add(() -> tokens);
      return this;
    }

    /** Adds a source of tokens asked at every check (a {@link TokenFile}). */
    public Builder tokens(Supplier<Tokens> source) {
      sources.add(Objects.requireNonNull(source, "tokens"));
      return this;
    }

    /** Adds one token named {@code name} unless {@code token} is null or empty. */
    public Builder token(String name, Role role, String token) {
      if (token != null && !token.isEmpty()) {
        tokens(Tokens.builder().add(name, role, token).build());
      }
      return this;
    }

    /** Without any token, accept writes from every address (default: from loopback only). */
    public Builder openWrites(boolean openWrites) {
      this.openWrites = openWrites;
      return this;
    }

    /** Which client addresses are loopback (tests); default {@link InetAddress#isLoopbackAddress()}. */
    public Builder loopback(Predicate<InetAddress> loopback) {
      this.loopback = Objects.requireNonNull(loopback, "loopback");
      return this;
    }

    /** Counts refusals in {@code registry} ({@value #REFUSED_METRIC}); default: not counted. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** Called with every refusal, on the request's thread (e.g. to write an event); must not block. */
    public Builder onRefused(Consumer<Refusal> onRefused) {
      this.onRefused = Objects.requireNonNull(onRefused, "onRefused");
      return this;
    }

    /** The authenticator. */
    public Authenticator build() {
      return new Authenticator(this);
    }
  }
}
