package io.allot.cli;

import io.allot.server.config.GoDuration;
import io.allot.tls.PemTls;
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerCredentials;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The TLS flags of a command that listens ({@code server}, {@code worker}, {@code job endpoint}, {@code dev}): one
 * certificate for every port it opens (HTTP and gRPC), optional mutual TLS, the rotation check. Without
 * {@code -tls-cert} the ports are plain text, and the start line says so. A picocli mixin: set while parsing, read
 * after, one thread.
 */
final class TlsOptions {
  @Option(names = {"-tls-cert", "--tls-cert"}, paramLabel = "FILE",
      description = "PEM certificate (chain) of every port this command listens on (HTTP and gRPC); with -tls-key. "
          + "Default: plain text.")
  Path cert;

  @Option(names = {"-tls-key", "--tls-key"}, paramLabel = "FILE",
      description = "PEM private key of -tls-cert (PKCS#8, PKCS#1 or SEC1, unencrypted).")
  Path key;

  @Option(names = {"-tls-client-ca", "--tls-client-ca"}, paramLabel = "FILE",
      description = "PEM roots: require every client to show a certificate they signed (mutual TLS).")
  Path clientCa;

  @Option(names = {"-tls-reload", "--tls-reload"}, paramLabel = "DURATION", defaultValue = "5s",
      description = "Look for rotated TLS files at most this often, on a new connection (0s: every one). "
          + "Default ${DEFAULT-VALUE}.")
  String reload;

  /** Set by {@link #server()}; null until then or when plain text. */
  private PemTls built;

  /** The server TLS, or null for plain text. Built once. */
  PemTls server() {
    if (built != null) {
      return built;
    }
    if (cert == null && key == null) {
      if (clientCa != null) {
        throw new BadInputException("-tls-client-ca needs -tls-cert and -tls-key (mutual TLS is TLS)");
      }
      return null;
    }
    if (cert == null || key == null) {
      throw new BadInputException(cert == null ? "-tls-key needs -tls-cert" : "-tls-cert needs -tls-key");
    }
    try {
      built = PemTls.server(cert, key, clientCa, reloadInterval(reload));
    } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
      throw new BadInputException("-tls-cert/-tls-key" + (clientCa == null ? "" : "/-tls-client-ca") + ": "
          + e.getMessage());
    }
    return built;
  }

  /** gRPC server credentials: TLS, or plain text. */
  ServerCredentials credentials() {
    PemTls t = server();
    return t == null ? InsecureServerCredentials.create() : t.serverCredentials();
  }

  /** For a start line: {@code TLS (certificate F, ...)} or {@code plain text (no -tls-cert)}. */
  String describe() {
    PemTls t = server();
    return t == null ? "plain text (no -tls-cert)" : t.toString();
  }

  static Duration reloadInterval(String text) {
    return "0".equals(text.trim()) ? Duration.ZERO : GoDuration.parse(text, "-tls-reload");
  }
}
