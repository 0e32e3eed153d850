package io.allot.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A private root CA made in a test with openssl(1), which issues server and client certificates as PEM files (each
 * with a new serial number, for {@code 127.0.0.1} and {@code localhost}, valid two days):
 *
 * <pre>{@code
 * TestCa ca = TestCa.create(dir);
 * TestCa.Issued server = ca.issue("server");         // dir/server.pem, dir/server.key
 * TestCa.Issued client = ca.issue("client");
 * ca.issueInto(server);                               // a rotation: a new certificate in the same files
 * }</pre>
 *
 * {@link TlsFiles} is the older, server-only form. Not thread-safe (openssl's serial file).
 */
public final class TestCa {
  private static final Duration OPENSSL_TIMEOUT = Duration.ofSeconds(60);

  private final Path dir;
  private final Path cert;
  private final Path key;

  /**
   * A certificate and its key (unencrypted PKCS#8), issued by a {@link TestCa}.
   *
   * @param cert the certificate, PEM
   * @param key  its private key, PEM
   * @param name the file name stem
   */
  public record Issued(Path cert, Path key, String name) {
    public Issued {
      Objects.requireNonNull(cert, "cert");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(name, "name");
    }
  }

  private TestCa(Path dir) {
    this.dir = dir;
    this.cert = dir.resolve("ca.pem");
    this.key = dir.resolve("ca.key");
  }

  /** Whether openssl(1) runs here. */
  public static boolean available() {
    return TlsFiles.available();
  }

  /**
   * Makes a new root in {@code dir} (created if needed): {@code ca.pem}, {@code ca.key}.
   *
   * @throws IllegalStateException if openssl is missing or fails, with its output
   */
  public static TestCa create(Path dir) {
    TestCa ca = new TestCa(dir);
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to " + dir, e);
    }
    openssl("req", "-x509", "-new", "-nodes", "-newkey", "rsa:2048", "-keyout", ca.key.toString(), "-out",
        ca.cert.toString(), "-days", "2", "-subj", "/CN=allot test CA " + System.nanoTime());
    return ca;
  }

  /** The root certificate: what a client (or a server checking clients) trusts. */
  public Path cert() {
    return cert;
  }

  /** Issues {@code DIR/NAME.pem} and {@code DIR/NAME.key}, subject {@code CN=NAME}. */
  public Issued issue(String name) {
    if (name == null || !name.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException("name must be letters, digits, _ and - but was '" + name + "'");
    }
    Issued out = new Issued(dir.resolve(name + ".pem"), dir.resolve(name + ".key"), name);
    issueInto(out);
    return out;
  }

  /**
   * Issues a new certificate and key (a new serial number) into {@code issued}'s files, each replaced at once (a
   * rename), the certificate first: a rotation as a secret manager does it.
   */
  public void issueInto(Issued issued) {
    Path newKey = dir.resolve(issued.name() + ".key.new");
    Path newCert = dir.resolve(issued.name() + ".pem.new");
    Path csr = dir.resolve(issued.name() + ".csr");
    openssl("req", "-new", "-nodes", "-newkey", "rsa:2048", "-keyout", newKey.toString(), "-out", csr.toString(),
        "-subj", "/CN=" + issued.name());
    openssl("x509", "-req", "-in", csr.toString(), "-CA", cert.toString(), "-CAkey", key.toString(),
        "-CAcreateserial", "-out", newCert.toString(), "-days", "2", "-extfile", dir.resolve("ext.cnf").toString());
    try {
      Files.move(newCert, issued.cert(), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      Files.move(newKey, issued.key(), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot move the new certificate into " + issued.cert(), e);
    }
  }

  private static void openssl(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add("openssl");
    cmd.addAll(List.of(args));
    Exec.check(cmd, OPENSSL_TIMEOUT);
  }
}
