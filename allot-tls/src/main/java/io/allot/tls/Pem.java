package io.allot.tls;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM files: certificates ({@code BEGIN CERTIFICATE}, one or a chain) and unencrypted private keys in PKCS#8
 * ({@code BEGIN PRIVATE KEY}, RSA, EC or Ed25519), PKCS#1 ({@code BEGIN RSA PRIVATE KEY}) or SEC1
 * ({@code BEGIN EC PRIVATE KEY}). Errors name the file and what was wrong with it.
 */
public final class Pem {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----", Pattern.DOTALL);
  // DER of the OIDs rsaEncryption (1.2.840.113549.1.1.1) and id-ecPublicKey (1.2.840.10045.2.1)
  private static final byte[] RSA_OID = {0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 1, 1, 1};
  private static final byte[] EC_OID = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 2, 1};

  private Pem() {}

  /**
   * The certificates in {@code file}, in file order (a chain: the leaf first).
   *
   * @throws IllegalArgumentException naming the file if it holds no certificate or a bad one
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  public static List<X509Certificate> certificates(Path file) {
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      for (Block b : blocks(file)) {
        if (b.type.equals("CERTIFICATE")) {
          out.add((X509Certificate) cf.generateCertificate(new ByteArrayInputStream(b.der)));
        }
      }
    } catch (CertificateException e) {
      throw new IllegalArgumentException(file + ": not a valid X.509 certificate: " + e.getMessage(), e);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(file + ": no PEM certificate (-----BEGIN CERTIFICATE-----) in it");
    }
    return List.copyOf(out);
  }

  /**
   * The first private key in {@code file} (unencrypted PKCS#8, PKCS#1 RSA or SEC1 EC).
   *
   * @throws IllegalArgumentException naming the file if it holds no such key (an encrypted one included)
   * @throws UncheckedIOException naming the file if it cannot be read
   */
  public static PrivateKey privateKey(Path file) {
    for (Block b : blocks(file)) {
      switch (b.type) {
        case "PRIVATE KEY" -> {
          return pkcs8(file, b.der);
        }
        case "RSA PRIVATE KEY" -> {
          return decode(file, "RSA", wrap(RSA_OID, new byte[] {0x05, 0x00}, b.der));
        }
        case "EC PRIVATE KEY" -> {
          return decode(file, "EC", wrap(EC_OID, curveOf(file, b.der), b.der));
        }
        case "ENCRYPTED PRIVATE KEY" -> throw new IllegalArgumentException(
            file + ": the private key is encrypted; give an unencrypted key (openssl pkcs8 -nocrypt)");
        default -> { } // e.g. EC PARAMETERS before the key
      }
    }
    throw new IllegalArgumentException(file + ": no PEM private key (-----BEGIN PRIVATE KEY-----) in it");
  }

  private static PrivateKey pkcs8(Path file, byte[] der) {
    IllegalArgumentException last = null;
    for (String alg : List.of("RSA", "EC", "Ed25519", "RSASSA-PSS")) {
      try {
        return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        last = new IllegalArgumentException(file + ": not a readable RSA, EC or Ed25519 private key", e);
      }
    }
    throw last;
  }

  private static PrivateKey decode(Path file, String alg, byte[] pkcs8) {
    try {
      return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(file + ": not a readable " + alg + " private key: " + e.getMessage(), e);
    }
  }

  /** PrivateKeyInfo ::= SEQUENCE { 0, AlgorithmIdentifier { oid, params }, OCTET STRING key }. */
  private static byte[] wrap(byte[] oid, byte[] params, byte[] key) {
    byte[] algId = tlv(0x30, concat(oid, params));
    return tlv(0x30, concat(new byte[] {0x02, 0x01, 0x00}, algId, tlv(0x04, key)));
  }

  /** The named-curve OID in a SEC1 ECPrivateKey's [0] parameters. */
  private static byte[] curveOf(Path file, byte[] sec1) {
    for (int i = 0; i + 2 < sec1.length; i++) {
      if ((sec1[i] & 0xff) == 0xa0 && sec1[i + 2] == 0x06) {
        int len = sec1[i + 1] & 0xff;
        byte[] oid = new byte[len];
        System.arraycopy(sec1, i + 2, oid, 0, len);
        return oid;
      }
    }
    throw new IllegalArgumentException(file + ": the EC private key names no curve; give it as PKCS#8");
  }

  private static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int n = value.length;
    if (n < 0x80) {
      out.write(n);
    } else if (n < 0x100) {
      out.write(0x81);
      out.write(n);
    } else if (n < 0x10000) {
      out.write(0x82);
      out.write(n >> 8);
      out.write(n & 0xff);
    } else {
      out.write(0x83);
      out.write(n >> 16);
      out.write((n >> 8) & 0xff);
      out.write(n & 0xff);
    }
    out.writeBytes(value);
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  private record Block(String type, byte[] der) {}

  private static List<Block> blocks(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      try {
        out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2).trim())));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(file + ": bad base64 in a " + m.group(1) + " block", e);
      }
    }
    return out;
  }
}
