package io.allot.tls;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The one certificate chain and key of a PEM pair, loaded again when the files change ({@link Watched}). Each load
 * has its own alias ({@code allot-GENERATION}), so nothing keyed by alias (a TLS provider's cache) keeps an old
 * certificate; the previous load still answers its alias during a handshake that chose it just before a reload.
 */
final class PemKeyManager extends X509ExtendedKeyManager {
  private final Watched<Pair> pair;
  /** The last pair handed out, and the one before it; written by handshake threads (a race loses one lookup). */
  private volatile Pair last;
  private volatile Pair beforeLast;

  record Pair(String alias, X509Certificate[] chain, PrivateKey key) {}

  PemKeyManager(Path cert, Path key, Duration reload) {
    long[] generation = {0}; // only touched by Watched's loads, one at a time
    this.pair = new Watched<>("certificate " + cert + " with key " + key, List.of(cert, key), reload,
        () -> load(cert, key, "allot-" + (++generation[0])));
  }

  /** Reads the pair and checks that the key signs what the certificate's public key verifies. */
  static Pair load(Path cert, Path key, String alias) {
    List<X509Certificate> chain = Pem.certificates(cert);
    PrivateKey k = Pem.privateKey(key);
    String alg = switch (k.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      default -> k.getAlgorithm(); // Ed25519, EdDSA
    };
    try {
      byte[] probe = "allot".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(alg);
      s.initSign(k);
      s.update(probe);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance(alg);
      v.initVerify(chain.get(0).getPublicKey());
      v.update(probe);
      if (!v.verify(sig)) {
        throw new IllegalArgumentException(key + " is not the private key of the certificate in " + cert);
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(key + " is not the private key of the certificate in " + cert + ": "
          + e.getMessage(), e);
    }
    return new Pair(alias, chain.toArray(X509Certificate[]::new), k);
  }

  /** The certificate in use (the chain's first), after a check for changed files. */
  X509Certificate certificate() {
    return current().chain[0];
  }

  private Pair current() {
    Pair p = pair.get();
    Pair l = last;
    if (l != p) {
      beforeLast = l;
      last = p;
    }
    return p;
  }

  private String choose(String[] keyTypes) {
    Pair p = current();
    String alg = p.key.getAlgorithm();
    for (String t : keyTypes) {
      if (t != null && (t.equals(alg) || t.startsWith(alg + "_") || (alg.equals("EdDSA") && t.equals("Ed25519")))) {
        return p.alias;
      }
    }
    return null;
  }

  private Pair byAlias(String alias) {
    for (Pair p : new Pair[] {last, beforeLast, pair.get()}) {
      if (p != null && p.alias.equals(alias)) {
        return p;
      }
    }
    return null;
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    String a = choose(new String[] {keyType});
    return a == null ? null : new String[] {a};
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return choose(keyType);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return choose(keyType);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return getClientAliases(keyType, issuers);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return choose(new String[] {keyType});
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return choose(new String[] {keyType});
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Pair p = byAlias(alias);
    return p == null ? null : p.chain.clone();
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Pair p = byAlias(alias);
    return p == null ? null : p.key;
  }
}
