package io.allot.tls;

import io.grpc.ChannelCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * TLS settings from PEM files, for one server port or one client, that follow the files: when a certificate, key or
 * CA file changes (a rotation), the next handshake after at most {@code reload} uses the new one; connections already
 * open keep theirs. A rotation that leaves the files unusable for a moment (the certificate written, the key not yet)
 * keeps the previous pair until both fit.
 *
 * <pre>{@code
 * PemTls tls = PemTls.server(Path.of("server.pem"), Path.of("server.key"), null, PemTls.DEFAULT_RELOAD);
 * NettyServerBuilder.forAddress(address, tls.serverCredentials());     // gRPC
 * sslContextFactory.setSslContext(tls.sslContext());                   // Jetty (setNeedClientAuth as told)
 * PemTls client = PemTls.client(Path.of("ca.pem"), null, null, PemTls.DEFAULT_RELOAD);
 * Grpc.newChannelBuilder(target, client.channelCredentials());
 * }</pre>
 *
 * Immutable and thread-safe (the file checks are).
 */
public final class PemTls {
  /** How often the files are looked at, at most (on a handshake): 5 s. */
  public static final Duration DEFAULT_RELOAD = Duration.ofSeconds(5);

  private final boolean server;
  private final PemKeyManager keys; // null: a client without a certificate
  private final PemTrustManager trust; // null: the JDK's roots (client) or no client certificates (server)
  private final SSLContext context;
  private final String description;

  private PemTls(boolean server, PemKeyManager keys, PemTrustManager trust, String description) {
    this.server = server;
    this.keys = keys;
    this.trust = trust;
    this.description = description;
    try {
      context = SSLContext.getInstance("TLS");
      context.init(keys == null ? null : new KeyManager[] {keys}, trust == null ? null : new TrustManager[] {trust},
          null);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  /**
   * A server's TLS: its certificate (chain) and key, and the roots of the client certificates it requires.
   *
   * @param clientCa null: clients need no certificate; else every client must show one signed by these roots
   * @throws IllegalArgumentException naming the file that is missing, unreadable or not fitting
   */
  public static PemTls server(Path cert, Path key, Path clientCa, Duration reload) {
    Duration r = check(reload);
    PemKeyManager k = new PemKeyManager(file("certificate", cert), file("key", key), r);
    PemTrustManager t = clientCa == null ? null : new PemTrustManager(file("client CA", clientCa), r);
    return new PemTls(true, k, t, "TLS (certificate " + cert + (clientCa == null ? ""
        : ", client certificates required from " + clientCa) + ")");
  }

  /**
   * A client's TLS: the roots it trusts and, for mutual TLS, its own certificate and key.
   *
   * @param ca   null: the JDK's default roots
   * @param cert null (with {@code key} null): no client certificate
   * @throws IllegalArgumentException naming the file that is missing, unreadable or not fitting, or if only one of
   *     {@code cert} and {@code key} is given
   */
  public static PemTls client(Path ca, Path cert, Path key, Duration reload) {
    Duration r = check(reload);
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException("a client certificate needs its key and a key its certificate; got "
          + (cert == null ? "a key only (" + key + ")" : "a certificate only (" + cert + ")"));
    }
    PemKeyManager k = cert == null ? null : new PemKeyManager(file("client certificate", cert),
        file("client key", key), r);
    PemTrustManager t = ca == null ? null : new PemTrustManager(file("CA", ca), r);
    return new PemTls(false, k, t, "TLS (trusting " + (ca == null ? "the JDK's roots" : ca)
        + (cert == null ? "" : ", client certificate " + cert) + ")");
  }

  /** An SSLContext on these managers (for Jetty, sockets, JDBC drivers); the same object on every call. */
  public SSLContext sslContext() {
    return context;
  }

  /** Whether this server requires client certificates (a client CA was given); false for a client. */
  public boolean requiresClientCertificate() {
    return server && trust != null;
  }

  /** The reloading key manager, or null for a client without a certificate. */
  public X509ExtendedKeyManager keyManager() {
    return keys;
  }

  /** The reloading trust manager, or null when the JDK's roots (client) or no client CA (server) apply. */
  public X509ExtendedTrustManager trustManager() {
    return trust;
  }

  /** The certificate shown now (after a check for changed files), or null for a client without one. */
  public X509Certificate certificate() {
    return keys == null ? null : keys.certificate();
  }

  /** gRPC server credentials (TLS; client certificates required when a client CA was given). */
  public ServerCredentials serverCredentials() {
    if (!server) {
      throw new IllegalStateException("client TLS settings cannot serve a port");
    }
    TlsServerCredentials.Builder b = TlsServerCredentials.newBuilder().keyManager(keys);
    if (trust != null) {
      b.trustManager(trust).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
    }
    return b.build();
  }

  /** gRPC channel credentials (TLS; the client certificate when given). */
  public ChannelCredentials channelCredentials() {
    if (server) {
      throw new IllegalStateException("server TLS settings cannot make a client channel");
    }
    TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
    if (keys != null) {
      b.keyManager(keys);
    }
    if (trust != null) {
      b.trustManager(trust);
    }
    return b.build();
  }

  /** For a start log line: {@code TLS (certificate F, client certificates required from G)} and the like. */
  @Override
  public String toString() {
    return description;
  }

  private static Duration check(Duration reload) {
    Objects.requireNonNull(reload, "reload");
    if (reload.isNegative()) {
      throw new IllegalArgumentException("the TLS reload interval must be 0 (every handshake) or more but was "
          + reload);
    }
    return reload;
  }

  private static Path file(String what, Path p) {
    Objects.requireNonNull(p, what);
    if (!Files.isReadable(p)) {
      throw new IllegalArgumentException("the TLS " + what + " file " + p + " does not exist or cannot be read");
    }
    return p;
  }
}
