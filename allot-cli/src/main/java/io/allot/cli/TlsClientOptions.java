package io.allot.cli;

import io.allot.tls.PemTls;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The TLS flags of a command that dials members over gRPC (the distributor's pings, the job dispatcher): the roots
 * to trust and, for mutual TLS, a client certificate. Without {@code -tls-ca} the channels are plain text. A picocli
 * mixin: set while parsing, read after, one thread.
 */
final class TlsClientOptions {
  @Option(names = {"-tls-ca", "--tls-ca"}, paramLabel = "FILE",
      description = "PEM roots to trust: dial members (pings, job endpoints) over TLS. Default: plain text.")
  Path ca;

  @Option(names = {"-tls-client-cert", "--tls-client-cert"}, paramLabel = "FILE",
      description = "PEM certificate to show members that require one (mutual TLS); with -tls-client-key.")
  Path cert;

  @Option(names = {"-tls-client-key", "--tls-client-key"}, paramLabel = "FILE",
      description = "PEM private key of -tls-client-cert.")
  Path key;

  @Option(names = {"-tls-client-reload", "--tls-client-reload"}, paramLabel = "DURATION", defaultValue = "5s",
      hidden = true, description = "Look for rotated client TLS files at most this often. Default ${DEFAULT-VALUE}.")
  String reload;

  /** Set by {@link #client()}; null until then or when plain text. */
  private PemTls built;

  /** The client TLS, or null for plain text. Built once. */
  PemTls client() {
    if (built != null) {
      return built;
    }
    if (ca == null && cert == null && key == null) {
      return null;
    }
    if (ca == null) {
      throw new BadInputException("-tls-client-cert/-tls-client-key need -tls-ca (the roots of the members' certificates)");
    }
    try {
      built = PemTls.client(ca, cert, key, TlsOptions.reloadInterval(reload));
      return built;
    } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
      throw new BadInputException("-tls-ca" + (cert == null ? "" : "/-tls-client-cert/-tls-client-key") + ": "
          + e.getMessage());
    }
  }

  /** gRPC channel credentials: TLS, or plain text. */
  ChannelCredentials credentials() {
    PemTls t = client();
    return t == null ? InsecureChannelCredentials.create() : t.channelCredentials();
  }

  /** The credentials, or null for plain text (APIs that take null as plain text). */
  ChannelCredentials credentialsOrNull() {
    PemTls t = client();
    return t == null ? null : t.channelCredentials();
  }

  /** For a start line. */
  String describe() {
    PemTls t = client();
    return t == null ? "plain text (no -tls-ca)" : t.toString();
  }
}
