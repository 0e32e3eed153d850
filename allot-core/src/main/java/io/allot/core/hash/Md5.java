package io.allot.core.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * MD5 (RFC 1321) without allocation per call, for hashing tens of millions of short keys.
 *
 * <p>The digest is returned the way Go's {@code hashring} reads it (its {@code
 * Int64PairHashKey}): digest bytes 0&ndash;7 as a little-endian signed {@code long} (the
 * <em>high</em> half), bytes 8&ndash;15 likewise (the <em>low</em> half). Messages of any length
 * are supported (several 64-byte blocks). Checked against {@link java.security.MessageDigest} by
 * property tests.
 *
 * <p>Two ways in: {@link #digest(byte[], int, long[])} and {@link #high(byte[], int)} hash {@code
 * buf[0..len)} and leave {@code buf} alone (they pad a copy in a per-thread scratch buffer, kept
 * up to 4 KiB); a hot loop that reuses its buffers can instead {@link #pad} them in place and call
 * {@link #highOfPadded}, {@link #digestPadded} or {@link #highOfPadded2} (two messages at once,
 * nearly twice the throughput), which skips the copy.
 *
 * <p>MD5 is used here only because the original distributor places its ring points with it, not
 * for security. Thread-safe.
 */
public final class Md5 {
  private Md5() {}

  private static final VarHandle LE_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LE_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Scratch buffers up to this size are kept per thread; larger messages get a fresh one. */
  private static final int SCRATCH_KEEP = 4096;

  private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[256]);

  /** Digest bytes 0&ndash;7 of {@code buf[0..len)} as a little-endian signed long. */
  public static long high(byte[] buf, int len) {
    return digest(buf, len, null);
  }

  /**
   * Digest bytes 8&ndash;15 of {@code buf[0..len)} as a little-endian signed long. (Allocates a
   * two-element array; hot loops use {@link #digest(byte[], int, long[])}.)
   */
  public static long low(byte[] buf, int len) {
    long[] out = new long[2];
    digest(buf, len, out);
    return out[1];
  }

  /**
   * Digests {@code buf[0..len)}; {@code buf} is not modified.
   *
   * @param out if not null, receives the high half at index 0 and the low half at index 1
   * @return the high half (digest bytes 0&ndash;7, little-endian)
   */
  public static long digest(byte[] buf, int len, long[] out) {
    if (len < 0 || len > buf.length) {
      throw new IndexOutOfBoundsException("len " + len + " for a buffer of " + buf.length);
    }
    int padded = paddedLength(len);
    byte[] scratch = SCRATCH.get();
    if (scratch.length < padded) {
      scratch = new byte[Math.max(padded, 2 * scratch.length)];
      if (scratch.length <= SCRATCH_KEEP) {
        SCRATCH.set(scratch);
      }
    }
    System.arraycopy(buf, 0, scratch, 0, len);
    pad(scratch, len);
    return digestPadded(scratch, padded, out);
  }

  /** The 16-byte digest of {@code data}, as {@link java.security.MessageDigest} returns it. */
  public static byte[] digest(byte[] data) {
    long[] hl = new long[2];
    digest(data, data.length, hl);
    byte[] r = new byte[16];
    LE_LONG.set(r, 0, hl[0]);
    LE_LONG.set(r, 8, hl[1]);
    return r;
  }

  /** Length of the padded message for a message of {@code len} bytes: a multiple of 64. */
  public static int paddedLength(int len) {
    return ((len + 8) >>> 6 << 6) + 64;
  }

  /**
   * Pads the message {@code buf[0..len)} in place: {@code 0x80}, zeros, and the bit length,
   * up to {@link #paddedLength}{@code (len)}.
   *
   * @throws IndexOutOfBoundsException if {@code buf} is shorter than that
   */
  public static void pad(byte[] buf, int len) {
    int padded = paddedLength(len);
    if (len < 0 || buf.length < padded) {
      throw new IndexOutOfBoundsException("padding " + len + " bytes needs " + padded + "; the buffer has " + buf.length);
    }
    buf[len] = (byte) 0x80;
    // zeros, eight at a time; the last store may run into the length, written next
    for (int i = len + 1; i < padded - 8; i += 8) {
      LE_LONG.set(buf, i, 0L);
    }
    LE_LONG.set(buf, padded - 8, (long) len << 3);
  }

  /** The high half of the digest of a message padded by {@link #pad}. */
  public static long highOfPadded(byte[] buf, int paddedLen) {
    return digestPadded(buf, paddedLen, null);
  }

  /**
   * Digests the message padded in place by {@link #pad}: {@code buf[0..paddedLen)}, where {@code
   * paddedLen} is a multiple of 64.
   *
   * @param out if not null, receives the high half at index 0 and the low half at index 1
   * @return the high half (digest bytes 0&ndash;7, little-endian)
   */
  public static long digestPadded(byte[] buf, int paddedLen, long[] out) {
    if ((paddedLen & 63) != 0 || paddedLen <= 0 || paddedLen > buf.length) {
      throw new IllegalArgumentException("padded length " + paddedLen + " for a buffer of " + buf.length);
    }
    int a = 0x67452301;
    int b = 0xefcdab89;
    int c = 0x98badcfe;
    int d = 0x10325476;
    for (int o = 0; o < paddedLen; o += 64) {
      int x0 = (int) LE_INT.get(buf, o);
      int x1 = (int) LE_INT.get(buf, o + 4);
      int x2 = (int) LE_INT.get(buf, o + 8);
      int x3 = (int) LE_INT.get(buf, o + 12);
      int x4 = (int) LE_INT.get(buf, o + 16);
      int x5 = (int) LE_INT.get(buf, o + 20);
      int x6 = (int) LE_INT.get(buf, o + 24);
      int x7 = (int) LE_INT.get(buf, o + 28);
      int x8 = (int) LE_INT.get(buf, o + 32);
      int x9 = (int) LE_INT.get(buf, o + 36);
      int x10 = (int) LE_INT.get(buf, o + 40);
      int x11 = (int) LE_INT.get(buf, o + 44);
      int x12 = (int) LE_INT.get(buf, o + 48);
      int x13 = (int) LE_INT.get(buf, o + 52);
      int x14 = (int) LE_INT.get(buf, o + 56);
      int x15 = (int) LE_INT.get(buf, o + 60);
      int aa = a;
      int bb = b;
      int cc = c;
      int dd = d;
        a = ff(a, b, c, d, x0, 7, 0xd76aa478);
        d = ff(d, a, b, c, x1, 12, 0xe8c7b756);
        c = ff(c, d, a, b, x2, 17, 0x242070db);
        b = ff(b, c, d, a, x3, 22, 0xc1bdceee);
        a = ff(a, b, c, d, x4, 7, 0xf57c0faf);
        d = ff(d, a, b, c, x5, 12, 0x4787c62a);
        c = ff(c, d, a, b, x6, 17, 0xa8304613);
        b = ff(b, c, d, a, x7, 22, 0xfd469501);
        a = ff(a, b, c, d, x8, 7, 0x698098d8);
        d = ff(d, a, b, c, x9, 12, 0x8b44f7af);
        c = ff(c, d, a, b, x10, 17, 0xffff5bb1);
        b = ff(b, c, d, a, x11, 22, 0x895cd7be);
        a = ff(a, b, c, d, x12, 7, 0x6b901122);
        d = ff(d, a, b, c, x13, 12, 0xfd987193);
        c = ff(c, d, a, b, x14, 17, 0xa679438e);
        b = ff(b, c, d, a, x15, 22, 0x49b40821);
        a = gg(a, b, c, d, x1, 5, 0xf61e2562);
        d = gg(d, a, b, c, x6, 9, 0xc040b340);
        c = gg(c, d, a, b, x11, 14, 0x265e5a51);
        b = gg(b, c, d, a, x0, 20, 0xe9b6c7aa);
        a = gg(a, b, c, d, x5, 5, 0xd62f105d);
        d = gg(d, a, b, c, x10, 9, 0x02441453);
        c = gg(c, d, a, b, x15, 14, 0xd8a1e681);
        b = gg(b, c, d, a, x4, 20, 0xe7d3fbc8);
        a = gg(a, b, c, d, x9, 5, 0x21e1cde6);
        d = gg(d, a, b, c, x14, 9, 0xc33707d6);
        c = gg(c, d, a, b, x3, 14, 0xf4d50d87);
        b = gg(b, c, d, a, x8, 20, 0x455a14ed);
        a = gg(a, b, c, d, x13, 5, 0xa9e3e905);
        d = gg(d, a, b, c, x2, 9, 0xfcefa3f8);
        c = gg(c, d, a, b, x7, 14, 0x676f02d9);
        b = gg(b, c, d, a, x12, 20, 0x8d2a4c8a);
        a = hh(a, b, c, d, x5, 4, 0xfffa3942);
        d = hh(d, a, b, c, x8, 11, 0x8771f681);
        c = hh(c, d, a, b, x11, 16, 0x6d9d6122);
        b = hh(b, c, d, a, x14, 23, 0xfde5380c);
        a = hh(a, b, c, d, x1, 4, 0xa4beea44);
        d = hh(d, a, b, c, x4, 11, 0x4bdecfa9);
        c = hh(c, d, a, b, x7, 16, 0xf6bb4b60);
        b = hh(b, c, d, a, x10, 23, 0xbebfbc70);
        a = hh(a, b, c, d, x13, 4, 0x289b7ec6);
        d = hh(d, a, b, c, x0, 11, 0xeaa127fa);
        c = hh(c, d, a, b, x3, 16, 0xd4ef3085);
        b = hh(b, c, d, a, x6, 23, 0x04881d05);
        a = hh(a, b, c, d, x9, 4, 0xd9d4d039);
        d = hh(d, a, b, c, x12, 11, 0xe6db99e5);
        c = hh(c, d, a, b, x15, 16, 0x1fa27cf8);
        b = hh(b, c, d, a, x2, 23, 0xc4ac5665);
        a = ii(a, b, c, d, x0, 6, 0xf4292244);
        d = ii(d, a, b, c, x7, 10, 0x432aff97);
        c = ii(c, d, a, b, x14, 15, 0xab9423a7);
        b = ii(b, c, d, a, x5, 21, 0xfc93a039);
        a = ii(a, b, c, d, x12, 6, 0x655b59c3);
        d = ii(d, a, b, c, x3, 10, 0x8f0ccc92);
        c = ii(c, d, a, b, x10, 15, 0xffeff47d);
        b = ii(b, c, d, a, x1, 21, 0x85845dd1);
        a = ii(a, b, c, d, x8, 6, 0x6fa87e4f);
        d = ii(d, a, b, c, x15, 10, 0xfe2ce6e0);
        c = ii(c, d, a, b, x6, 15, 0xa3014314);
        b = ii(b, c, d, a, x13, 21, 0x4e0811a1);
        a = ii(a, b, c, d, x4, 6, 0xf7537e82);
        d = ii(d, a, b, c, x11, 10, 0xbd3af235);
        c = ii(c, d, a, b, x2, 15, 0x2ad7d2bb);
        b = ii(b, c, d, a, x9, 21, 0xeb86d391);
      a += aa;
      b += bb;
      c += cc;
      d += dd;
    }
    long high = (a & 0xffffffffL) | ((long) b << 32);
    if (out != null) {
      out[0] = high;
      out[1] = (c & 0xffffffffL) | ((long) d << 32);
    }
    return high;
  }

  /**
   * The high halves of two messages of the same padded length, each padded by {@link #pad}, into
   * {@code out[0]} and {@code out[1]}. Hashing two messages at once is faster than one after the
   * other: MD5 is one long chain of dependent steps, and two chains keep the CPU busier.
   */
  public static void highOfPadded2(byte[] m1, byte[] m2, int paddedLen, long[] out) {
    if ((paddedLen & 63) != 0 || paddedLen <= 0 || paddedLen > m1.length || paddedLen > m2.length) {
      throw new IllegalArgumentException(
          "padded length " + paddedLen + " for buffers of " + m1.length + " and " + m2.length);
    }
    int a1 = 0x67452301;
    int b1 = 0xefcdab89;
    int c1 = 0x98badcfe;
    int d1 = 0x10325476;
    int a2 = 0x67452301;
    int b2 = 0xefcdab89;
    int c2 = 0x98badcfe;
    int d2 = 0x10325476;
    for (int o = 0; o < paddedLen; o += 64) {
      int x01 = (int) LE_INT.get(m1, o);
      int x11 = (int) LE_INT.get(m1, o + 4);
      int x21 = (int) LE_INT.get(m1, o + 8);
      int x31 = (int) LE_INT.get(m1, o + 12);
      int x41 = (int) LE_INT.get(m1, o + 16);
      int x51 = (int) LE_INT.get(m1, o + 20);
      int x61 = (int) LE_INT.get(m1, o + 24);
      int x71 = (int) LE_INT.get(m1, o + 28);
      int x81 = (int) LE_INT.get(m1, o + 32);
      int x91 = (int) LE_INT.get(m1, o + 36);
      int x101 = (int) LE_INT.get(m1, o + 40);
      int x111 = (int) LE_INT.get(m1, o + 44);
      int x121 = (int) LE_INT.get(m1, o + 48);
      int x131 = (int) LE_INT.get(m1, o + 52);
      int x141 = (int) LE_INT.get(m1, o + 56);
      int x151 = (int) LE_INT.get(m1, o + 60);
      int x02 = (int) LE_INT.get(m2, o);
      int x12 = (int) LE_INT.get(m2, o + 4);
      int x22 = (int) LE_INT.get(m2, o + 8);
      int x32 = (int) LE_INT.get(m2, o + 12);
      int x42 = (int) LE_INT.get(m2, o + 16);
      int x52 = (int) LE_INT.get(m2, o + 20);
      int x62 = (int) LE_INT.get(m2, o + 24);
      int x72 = (int) LE_INT.get(m2, o + 28);
      int x82 = (int) LE_INT.get(m2, o + 32);
      int x92 = (int) LE_INT.get(m2, o + 36);
      int x102 = (int) LE_INT.get(m2, o + 40);
      int x112 = (int) LE_INT.get(m2, o + 44);
      int x122 = (int) LE_INT.get(m2, o + 48);
      int x132 = (int) LE_INT.get(m2, o + 52);
      int x142 = (int) LE_INT.get(m2, o + 56);
      int x152 = (int) LE_INT.get(m2, o + 60);
      int aa1 = a1;
      int bb1 = b1;
      int cc1 = c1;
      int dd1 = d1;
      int aa2 = a2;
      int bb2 = b2;
      int cc2 = c2;
      int dd2 = d2;
      a1 = ff(a1, b1, c1, d1, x01, 7, 0xd76aa478);
      a2 = ff(a2, b2, c2, d2, x02, 7, 0xd76aa478);
      d1 = ff(d1, a1, b1, c1, x11, 12, 0xe8c7b756);
      d2 = ff(d2, a2, b2, c2, x12, 12, 0xe8c7b756);
      c1 = ff(c1, d1, a1, b1, x21, 17, 0x242070db);
      c2 = ff(c2, d2, a2, b2, x22, 17, 0x242070db);
      b1 = ff(b1, c1, d1, a1, x31, 22, 0xc1bdceee);
      b2 = ff(b2, c2, d2, a2, x32, 22, 0xc1bdceee);
      a1 = ff(a1, b1, c1, d1, x41, 7, 0xf57c0faf);
      a2 = ff(a2, b2, c2, d2, x42, 7, 0xf57c0faf);
      d1 = ff(d1, a1, b1, c1, x51, 12, 0x4787c62a);
      d2 = ff(d2, a2, b2, c2, x52, 12, 0x4787c62a);
      c1 = ff(c1, d1, a1, b1, x61, 17, 0xa8304613);
      c2 = ff(c2, d2, a2, b2, x62, 17, 0xa8304613);
      b1 = ff(b1, c1, d1, a1, x71, 22, 0xfd469501);
      b2 = ff(b2, c2, d2, a2, x72, 22, 0xfd469501);
      a1 = ff(a1, b1, c1, d1, x81, 7, 0x698098d8);
      a2 = ff(a2, b2, c2, d2, x82, 7, 0x698098d8);
      d1 = ff(d1, a1, b1, c1, x91, 12, 0x8b44f7af);
      d2 = ff(d2, a2, b2, c2, x92, 12, 0x8b44f7af);
      c1 = ff(c1, d1, a1, b1, x101, 17, 0xffff5bb1);
      c2 = ff(c2, d2, a2, b2, x102, 17, 0xffff5bb1);
      b1 = ff(b1, c1, d1, a1, x111, 22, 0x895cd7be);
      b2 = ff(b2, c2, d2, a2, x112, 22, 0x895cd7be);
      a1 = ff(a1, b1, c1, d1, x121, 7, 0x6b901122);
      a2 = ff(a2, b2, c2, d2, x122, 7, 0x6b901122);
      d1 = ff(d1, a1, b1, c1, x131, 12, 0xfd987193);
      d2 = ff(d2, a2, b2, c2, x132, 12, 0xfd987193);
      c1 = ff(c1, d1, a1, b1, x141, 17, 0xa679438e);
      c2 = ff(c2, d2, a2, b2, x142, 17, 0xa679438e);
      b1 = ff(b1, c1, d1, a1, x151, 22, 0x49b40821);
      b2 = ff(b2, c2, d2, a2, x152, 22, 0x49b40821);
      a1 = gg(a1, b1, c1, d1, x11, 5, 0xf61e2562);
      a2 = gg(a2, b2, c2, d2, x12, 5, 0xf61e2562);
      d1 = gg(d1, a1, b1, c1, x61, 9, 0xc040b340);
      d2 = gg(d2, a2, b2, c2, x62, 9, 0xc040b340);
      c1 = gg(c1, d1, a1, b1, x111, 14, 0x265e5a51);
      c2 = gg(c2, d2, a2, b2, x112, 14, 0x265e5a51);
      b1 = gg(b1, c1, d1, a1, x01, 20, 0xe9b6c7aa);
      b2 = gg(b2, c2, d2, a2, x02, 20, 0xe9b6c7aa);
      a1 = gg(a1, b1, c1, d1, x51, 5, 0xd62f105d);
      a2 = gg(a2, b2, c2, d2, x52, 5, 0xd62f105d);
      d1 = gg(d1, a1, b1, c1, x101, 9, 0x02441453);
      d2 = gg(d2, a2, b2, c2, x102, 9, 0x02441453);
      c1 = gg(c1, d1, a1, b1, x151, 14, 0xd8a1e681);
      c2 = gg(c2, d2, a2, b2, x152, 14, 0xd8a1e681);
      b1 = gg(b1, c1, d1, a1, x41, 20, 0xe7d3fbc8);
      b2 = gg(b2, c2, d2, a2, x42, 20, 0xe7d3fbc8);
      a1 = gg(a1, b1, c1, d1, x91, 5, 0x21e1cde6);
      a2 = gg(a2, b2, c2, d2, x92, 5, 0x21e1cde6);
      d1 = gg(d1, a1, b1, c1, x141, 9, 0xc33707d6);
      d2 = gg(d2, a2, b2, c2, x142, 9, 0xc33707d6);
      c1 = gg(c1, d1, a1, b1, x31, 14, 0xf4d50d87);
      c2 = gg(c2, d2, a2, b2, x32, 14, 0xf4d50d87);
      b1 = gg(b1, c1, d1, a1, x81, 20, 0x455a14ed);
      b2 = gg(b2, c2, d2, a2, x82, 20, 0x455a14ed);
      a1 = gg(a1, b1, c1, d1, x131, 5, 0xa9e3e905);
      a2 = gg(a2, b2, c2, d2, x132, 5, 0xa9e3e905);
      d1 = gg(d1, a1, b1, c1, x21, 9, 0xfcefa3f8);
      d2 = gg(d2, a2, b2, c2, x22, 9, 0xfcefa3f8);
      c1 = gg(c1, d1, a1, b1, x71, 14, 0x676f02d9);
      c2 = gg(c2, d2, a2, b2, x72, 14, 0x676f02d9);
      b1 = gg(b1, c1, d1, a1, x121, 20, 0x8d2a4c8a);
      b2 = gg(b2, c2, d2, a2, x122, 20, 0x8d2a4c8a);
      a1 = hh(a1, b1, c1, d1, x51, 4, 0xfffa3942);
      a2 = hh(a2, b2, c2, d2, x52, 4, 0xfffa3942);
      d1 = hh(d1, a1, b1, c1, x81, 11, 0x8771f681);
      d2 = hh(d2, a2, b2, c2, x82, 11, 0x8771f681);
      c1 = hh(c1, d1, a1, b1, x111, 16, 0x6d9d6122);
      c2 = hh(c2, d2, a2, b2, x112, 16, 0x6d9d6122);
      b1 = hh(b1, c1, d1, a1, x141, 23, 0xfde5380c);
      b2 = hh(b2, c2, d2, a2, x142, 23, 0xfde5380c);
      a1 = hh(a1, b1, c1, d1, x11, 4, 0xa4beea44);
      a2 = hh(a2, b2, c2, d2, x12, 4, 0xa4beea44);
      d1 = hh(d1, a1, b1, c1, x41, 11, 0x4bdecfa9);
      d2 = hh(d2, a2, b2, c2, x42, 11, 0x4bdecfa9);
      c1 = hh(c1, d1, a1, b1, x71, 16, 0xf6bb4b60);
      c2 = hh(c2, d2, a2, b2, x72, 16, 0xf6bb4b60);
      b1 = hh(b1, c1, d1, a1, x101, 23, 0xbebfbc70);
      b2 = hh(b2, c2, d2, a2, x102, 23, 0xbebfbc70);
      a1 = hh(a1, b1, c1, d1, x131, 4, 0x289b7ec6);
      a2 = hh(a2, b2, c2, d2, x132, 4, 0x289b7ec6);
      d1 = hh(d1, a1, b1, c1, x01, 11, 0xeaa127fa);
      d2 = hh(d2, a2, b2, c2, x02, 11, 0xeaa127fa);
      c1 = hh(c1, d1, a1, b1, x31, 16, 0xd4ef3085);
      c2 = hh(c2, d2, a2, b2, x32, 16, 0xd4ef3085);
      b1 = hh(b1, c1, d1, a1, x61, 23, 0x04881d05);
      b2 = hh(b2, c2, d2, a2, x62, 23, 0x04881d05);
      a1 = hh(a1, b1, c1, d1, x91, 4, 0xd9d4d039);
      a2 = hh(a2, b2, c2, d2, x92, 4, 0xd9d4d039);
      d1 = hh(d1, a1, b1, c1, x121, 11, 0xe6db99e5);
      d2 = hh(d2, a2, b2, c2, x122, 11, 0xe6db99e5);
      c1 = hh(c1, d1, a1, b1, x151, 16, 0x1fa27cf8);
      c2 = hh(c2, d2, a2, b2, x152, 16, 0x1fa27cf8);
      b1 = hh(b1, c1, d1, a1, x21, 23, 0xc4ac5665);
      b2 = hh(b2, c2, d2, a2, x22, 23, 0xc4ac5665);
      a1 = ii(a1, b1, c1, d1, x01, 6, 0xf4292244);
      a2 = ii(a2, b2, c2, d2, x02, 6, 0xf4292244);
      d1 = ii(d1, a1, b1, c1, x71, 10, 0x432aff97);
      d2 = ii(d2, a2, b2, c2, x72, 10, 0x432aff97);
      c1 = ii(c1, d1, a1, b1, x141, 15, 0xab9423a7);
      c2 = ii(c2, d2, a2, b2, x142, 15, 0xab9423a7);
      b1 = ii(b1, c1, d1, a1, x51, 21, 0xfc93a039);
      b2 = ii(b2, c2, d2, a2, x52, 21, 0xfc93a039);
      a1 = ii(a1, b1, c1, d1, x121, 6, 0x655b59c3);
      a2 = ii(a2, b2, c2, d2, x122, 6, 0x655b59c3);
      d1 = ii(d1, a1, b1, c1, x31, 10, 0x8f0ccc92);
      d2 = ii(d2, a2, b2, c2, x32, 10, 0x8f0ccc92);
      c1 = ii(c1, d1, a1, b1, x101, 15, 0xffeff47d);
      c2 = ii(c2, d2, a2, b2, x102, 15, 0xffeff47d);
      b1 = ii(b1, c1, d1, a1, x11, 21, 0x85845dd1);
      b2 = ii(b2, c2, d2, a2, x12, 21, 0x85845dd1);
      a1 = ii(a1, b1, c1, d1, x81, 6, 0x6fa87e4f);
      a2 = ii(a2, b2, c2, d2, x82, 6, 0x6fa87e4f);
      d1 = ii(d1, a1, b1, c1, x151, 10, 0xfe2ce6e0);
      d2 = ii(d2, a2, b2, c2, x152, 10, 0xfe2ce6e0);
      c1 = ii(c1, d1, a1, b1, x61, 15, 0xa3014314);
      c2 = ii(c2, d2, a2, b2, x62, 15, 0xa3014314);
      b1 = ii(b1, c1, d1, a1, x131, 21, 0x4e0811a1);
      b2 = ii(b2, c2, d2, a2, x132, 21, 0x4e0811a1);
      a1 = ii(a1, b1, c1, d1, x41, 6, 0xf7537e82);
      a2 = ii(a2, b2, c2, d2, x42, 6, 0xf7537e82);
      d1 = ii(d1, a1, b1, c1, x111, 10, 0xbd3af235);
      d2 = ii(d2, a2, b2, c2, x112, 10, 0xbd3af235);
      c1 = ii(c1, d1, a1, b1, x21, 15, 0x2ad7d2bb);
      c2 = ii(c2, d2, a2, b2, x22, 15, 0x2ad7d2bb);
      b1 = ii(b1, c1, d1, a1, x91, 21, 0xeb86d391);
      b2 = ii(b2, c2, d2, a2, x92, 21, 0xeb86d391);
      a1 += aa1;
      b1 += bb1;
      c1 += cc1;
      d1 += dd1;
      a2 += aa2;
      b2 += bb2;
      c2 += cc2;
      d2 += dd2;
    }
    out[0] = (a1 & 0xffffffffL) | ((long) b1 << 32);
    out[1] = (a2 & 0xffffffffL) | ((long) b2 << 32);
  }


  private static int ff(int a, int b, int c, int d, int x, int s, int t) {
    return b + Integer.rotateLeft(a + ((b & c) | (~b & d)) + x + t, s);
  }

  private static int gg(int a, int b, int c, int d, int x, int s, int t) {
    return b + Integer.rotateLeft(a + ((b & d) | (c & ~d)) + x + t, s);
  }

  private static int hh(int a, int b, int c, int d, int x, int s, int t) {
    return b + Integer.rotateLeft(a + (b ^ c ^ d) + x + t, s);
  }

  private static int ii(int a, int b, int c, int d, int x, int s, int t) {
    return b + Integer.rotateLeft(a + (c ^ (b | ~d)) + x + t, s);
  }
}
