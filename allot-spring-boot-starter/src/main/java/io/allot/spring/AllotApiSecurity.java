package io.allot.spring;

import io.allot.server.auth.Authenticator;
import io.allot.server.auth.Role;
import io.allot.server.auth.TokenFile;
import io.allot.tls.PemTls;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;

/**
 * Turns {@code allot.api.*} into the API port's {@link Authenticator} and {@link PemTls}, as allot server's
 * -api-token, -api-read-token, -api-tokens, -api-open-writes and -tls-* flags do. A bad setting is an
 * {@link IllegalArgumentException} naming the property.
 */
final class AllotApiSecurity {
  private AllotApiSecurity() {}

  /** The one check of the API: the tokens of every setting; refusals counted in {@code registry} (null: not). */
  static Authenticator authenticator(AllotProperties.ApiSettings api, MeterRegistry registry) {
    boolean hasWriter = !api.token().isEmpty() || api.tokensFile() != null;
    if (!api.readToken().isEmpty() && !hasWriter) {
      throw new IllegalArgumentException("allot.api.read-token: closes reads but no token could write; set "
          + "allot.api.token or allot.api.tokens-file too");
    }
    if (!api.token().isEmpty() && api.token().equals(api.readToken())) {
      throw new IllegalArgumentException("allot.api.read-token: must differ from allot.api.token");
    }
    Authenticator.Builder b = Authenticator.builder().openWrites(api.openWrites())
        .token("api-token", Role.WRITE, api.token()).token("api-read-token", Role.READ, api.readToken());
    if (api.tokensFile() != null) {
      try {
        b.tokens(TokenFile.load(Path.of(api.tokensFile())));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("allot.api.tokens-file: " + e.getMessage(), e);
      }
    }
    if (registry != null) {
      b.meterRegistry(registry);
    }
    return b.build();
  }

  /** HTTPS from {@code allot.api.tls.*}, or null (plain HTTP) when neither cert nor key is set. */
  static PemTls tls(AllotProperties.TlsSettings tls) {
    if (tls.cert() == null && tls.key() == null) {
      if (tls.clientCa() != null) {
        throw new IllegalArgumentException("allot.api.tls.client-ca: needs allot.api.tls.cert and allot.api.tls.key");
      }
      return null;
    }
    if (tls.cert() == null || tls.key() == null) {
      throw new IllegalArgumentException("allot.api.tls." + (tls.cert() == null ? "cert" : "key")
          + ": missing; HTTPS needs both allot.api.tls.cert and allot.api.tls.key");
    }
    try {
      return PemTls.server(Path.of(tls.cert()), Path.of(tls.key()),
          tls.clientCa() == null ? null : Path.of(tls.clientCa()), tls.reload());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("allot.api.tls: " + e.getMessage(), e);
    }
  }
}
