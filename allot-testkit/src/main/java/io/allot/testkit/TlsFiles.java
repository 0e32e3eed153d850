package io.allot.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A private root CA and a server certificate it signed (for {@code 127.0.0.1} and {@code localhost}), as PEM files,
 * for TLS tests ({@link RedisServer.Builder#tls(TlsFiles)}). Two calls make two unrelated roots, so a client can be
 * shown a certificate from a root it was not told to trust.
 *
 * @param caCert     the root certificate, what a client trusts
 * @param serverCert the server certificate, signed by the root
 * @param serverKey  the server's private key (unencrypted)
 */
public record TlsFiles(Path caCert, Path serverCert, Path serverKey) {
  private static final Duration OPENSSL_TIMEOUT = Duration.ofSeconds(60);

  public TlsFiles {
    Objects.requireNonNull(caCert, "caCert");
    Objects.requireNonNull(serverCert, "serverCert");
    Objects.requireNonNull(serverKey, "serverKey");
  }

  /** Whether openssl(1) runs here. */
  public static boolean available() {
    return Exec.succeeds(List.of("openssl", "version"));
  }

  /**
   * Makes a new root CA and a server certificate in {@code dir} (created if needed) with openssl(1), valid for two
   * days: {@code ca.pem}, {@code server.pem}, {@code server.key} (and the CA's key and the request).
   *
   * @throws IllegalStateException if openssl is missing or fails, with its output
   */
  public static TlsFiles generate(Path dir) {
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to " + dir, e);
    }
    String ca = dir.resolve("ca.pem").toString();
    String caKey = dir.resolve("ca.key").toString();
    String cert = dir.resolve("server.pem").toString();
    String key = dir.resolve("server.key").toString();
    String csr = dir.resolve("server.csr").toString();
    openssl("req", "-x509", "-new", "-nodes", "-newkey", "rsa:2048", "-keyout", caKey, "-out", ca, "-days", "2",
        "-subj", "/CN=allot test root " + System.nanoTime());
    openssl("req", "-new", "-nodes", "-newkey", "rsa:2048", "-keyout", key, "-out", csr, "-subj", "/CN=localhost");
    openssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-out", cert, "-days", "2",
        "-extfile", dir.resolve("ext.cnf").toString());
    return new TlsFiles(dir.resolve("ca.pem"), dir.resolve("server.pem"), dir.resolve("server.key"));
  }

  /** Client sockets that trust this root only. */
  SSLSocketFactory clientSocketFactory() {
    try (InputStream in = Files.newInputStream(caCert)) {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trust.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx.getSocketFactory();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + caCert, e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot use " + caCert + " as a trust root: " + e.getMessage(), e);
    }
  }

  private static void openssl(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add("openssl");
    cmd.addAll(List.of(args));
    Exec.check(cmd, OPENSSL_TIMEOUT);
  }
}
