package io.allot.tls;

import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts the certificates (roots) of one PEM file, loaded again when it changes ({@link Watched}); the checks
 * themselves, hostname verification included when the engine asks for it, are the JDK's (PKIX).
 */
final class PemTrustManager extends X509ExtendedTrustManager {
  private final Watched<X509ExtendedTrustManager> delegate;

  PemTrustManager(Path roots, Duration reload) {
    this.delegate = new Watched<>("trusted roots " + roots, List.of(roots), reload, () -> load(roots));
  }

  private static X509ExtendedTrustManager load(Path roots) {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      int i = 0;
      for (X509Certificate c : Pem.certificates(roots)) {
        ks.setCertificateEntry("root-" + i++, c);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      for (TrustManager tm : tmf.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) {
          return x;
        }
      }
      throw new IllegalStateException("the JDK offers no X509ExtendedTrustManager");
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalArgumentException(roots + ": cannot be used as trusted roots: " + e.getMessage(), e);
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.get().checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.get().checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.get().checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.get().checkServerTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    delegate.get().checkClientTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    delegate.get().checkServerTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return delegate.get().getAcceptedIssuers();
  }
}
