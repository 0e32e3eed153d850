package io.allot.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class Md5Properties {

  static byte[] reference(byte[] data) throws Exception {
    return MessageDigest.getInstance("MD5").digest(data);
  }

  static long le(byte[] d, int off) {
    return ByteBuffer.wrap(d, off, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
  }

  static void check(byte[] data) throws Exception {
    byte[] want = reference(data);
    assertThat(Md5.digest(data)).isEqualTo(want);
    long[] out = new long[2];
    assertThat(Md5.digest(data, data.length, out)).isEqualTo(le(want, 0));
    assertThat(out).containsExactly(le(want, 0), le(want, 8));
    assertThat(Md5.high(data, data.length)).isEqualTo(le(want, 0));
    assertThat(Md5.low(data, data.length)).isEqualTo(le(want, 8));
  }

  @Test
  void rfc1321TestSuite() {
    String[][] vectors = {
      {"", "d41d8cd98f00b204e9800998ecf8427e"},
      {"a", "0cc175b9c0f1b6a831c399e269772661"},
      {"abc", "900150983cd24fb0d6963f7d28e17f72"},
      {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
      {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
      {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"},
      {
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        "57edf4a22be3c955ac49da2e2107b67a"
      },
    };
    for (String[] v : vectors) {
      assertThat(HexFormat.of().formatHex(Md5.digest(v[0].getBytes(StandardCharsets.US_ASCII))))
          .as(v[0])
          .isEqualTo(v[1]);
    }
  }

  @Test
  void everyLengthAroundTheBlockBoundaries() throws Exception {
    byte[] all = new byte[300];
    for (int i = 0; i < all.length; i++) {
      all[i] = (byte) (i * 37 + 11);
    }
    for (int len = 0; len <= all.length; len++) {
      check(Arrays.copyOf(all, len));
    }
  }

  @Property(tries = 1000)
  void equalsMessageDigestOnBytes(@ForAll("bytes") byte[] data) throws Exception {
    check(data);
  }

  @Property(tries = 500)
  void equalsMessageDigestOnStrings(@ForAll("strings") String s) throws Exception {
    check(s.getBytes(StandardCharsets.UTF_8));
  }

  /** Only {@code buf[0..len)} counts: what follows in a reused buffer does not. */
  @Property(tries = 300)
  void ignoresBytesPastLen(@ForAll("bytes") byte[] data, @ForAll @IntRange(min = 1, max = 100) int extra)
      throws Exception {
    byte[] buf = Arrays.copyOf(data, data.length + extra);
    Arrays.fill(buf, data.length, buf.length, (byte) 0x5a);
    byte[] want = reference(data);
    long[] out = new long[2];
    Md5.digest(buf, data.length, out);
    assertThat(out).containsExactly(le(want, 0), le(want, 8));
  }

  /** The in-place API: pad, then one or two messages at once. */
  @Property(tries = 300)
  void paddedInPlaceOneAndTwoAtOnce(@ForAll("bytes") byte[] x, @ForAll("bytes") byte[] y) throws Exception {
    // y cut or extended to a length with the same padded length as x
    int padded = Md5.paddedLength(x.length);
    int lenY = Math.min(y.length, padded - 9);
    if (Md5.paddedLength(lenY) != padded) {
      lenY = x.length;
    }
    byte[] y2 = Arrays.copyOf(y, lenY);
    byte[] bx = Arrays.copyOf(x, padded + 7);
    byte[] by = Arrays.copyOf(y2, padded);
    Arrays.fill(bx, x.length, bx.length, (byte) 0x33); // garbage that pad() must overwrite
    Md5.pad(bx, x.length);
    Md5.pad(by, lenY);
    long[] one = new long[2];
    assertThat(Md5.digestPadded(bx, padded, one)).isEqualTo(le(reference(x), 0));
    assertThat(one[1]).isEqualTo(le(reference(x), 8));
    assertThat(Md5.highOfPadded(by, padded)).isEqualTo(le(reference(y2), 0));
    long[] two = new long[2];
    Md5.highOfPadded2(bx, by, padded, two);
    assertThat(two).containsExactly(le(reference(x), 0), le(reference(y2), 0));
  }

  @Test
  void twoAtOnceForEveryPairOfLengthsWithTheSamePaddedLength() throws Exception {
    byte[] all = new byte[200];
    for (int i = 0; i < all.length; i++) {
      all[i] = (byte) (i * 59 + 3);
    }
    long[] two = new long[2];
    for (int la = 0; la <= all.length; la++) {
      for (int lb = 0; lb <= all.length; lb += 5) {
        int padded = Md5.paddedLength(la);
        if (Md5.paddedLength(lb) != padded) {
          continue;
        }
        byte[] a = Arrays.copyOf(all, padded);
        byte[] b = Arrays.copyOf(all, padded);
        b[0] ^= 1;
        Md5.pad(a, la);
        Md5.pad(b, lb);
        Md5.highOfPadded2(a, b, padded, two);
        byte[] wantB = Arrays.copyOf(all, lb);
        if (lb > 0) {
          wantB[0] ^= 1;
        }
        assertThat(two).containsExactly(le(reference(Arrays.copyOf(all, la)), 0), le(reference(wantB), 0));
      }
    }
  }

  @Test
  void paddingNeedsRoom() {
    assertThat(Md5.paddedLength(0)).isEqualTo(64);
    assertThat(Md5.paddedLength(55)).isEqualTo(64);
    assertThat(Md5.paddedLength(56)).isEqualTo(128);
    assertThat(Md5.paddedLength(119)).isEqualTo(128);
    assertThat(Md5.paddedLength(120)).isEqualTo(192);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Md5.pad(new byte[63], 10))
        .isInstanceOf(IndexOutOfBoundsException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Md5.digestPadded(new byte[64], 60, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Provide
  Arbitrary<byte[]> bytes() {
    return Arbitraries.oneOf(
        Arbitraries.bytes().array(byte[].class).ofMaxSize(70),
        Arbitraries.bytes().array(byte[].class).ofMinSize(50).ofMaxSize(140),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(1000));
  }

  @Provide
  Arbitrary<String> strings() {
    Arbitrary<String> supplementary =
        Arbitraries.integers()
            .between(0x10000, 0x10FFFF)
            .list()
            .ofMaxSize(40)
            .map(cps -> cps.stream().collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString());
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(40), // any char, incl. lone surrogates
        Arbitraries.strings().alpha().numeric().withChars('-').ofMaxLength(200),
        supplementary);
  }
}
