package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.codec.StringCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Utf8Codec} tells exactly the size it then writes (Lettuce trusts it and writes no temporary buffer), and
 * writes the same bytes as Lettuce's own UTF-8 codec, for any text: ASCII, multi-byte, surrogate pairs, unpaired
 * surrogates.
 */
class Utf8CodecTest {
  @Test
  void theSizeIsExactlyWhatIsWrittenAndTheBytesAreLettucesOwn() {
    List<String> fixed = List.of("", "a", "job-42", "é", "日本語", "\uD83D\uDE00", "\uD83D", "x\uDE00y", "\u0000|\n");
    Random rnd = new Random(22);
    for (int i = 0; i < 10_000 + fixed.size(); i++) {
      String s = i < fixed.size() ? fixed.get(i) : randomText(rnd);
      ByteBuf ours = Unpooled.buffer();
      ByteBuf lettuces = Unpooled.buffer();
      Utf8Codec.UTF8.encodeValue(s, ours);
      StringCodec.UTF8.encodeValue(s, lettuces);
      assertThat(Utf8Codec.UTF8.estimateSize(s)).as("size of %s", s).isEqualTo(ours.readableBytes());
      assertThat(bytes(ours)).as("bytes of %s", s).isEqualTo(bytes(lettuces));
      assertThat(Utf8Codec.UTF8.decodeValue(ours.nioBuffer())).as("round trip of %s", s)
          .isEqualTo(StringCodec.UTF8.decodeValue(lettuces.nioBuffer()));
    }
    assertThat(Utf8Codec.UTF8.isEstimateExact()).isTrue();
    assertThat(Utf8Codec.UTF8.estimateSize(null)).isZero();
  }

  /** Up to 12 chars drawn from ASCII, Latin-1, CJK and the surrogate ranges (so pairs and unpaired halves occur). */
  private static String randomText(Random rnd) {
    StringBuilder b = new StringBuilder();
    int n = rnd.nextInt(13);
    for (int i = 0; i < n; i++) {
      switch (rnd.nextInt(5)) {
        case 0 -> b.append((char) (0x20 + rnd.nextInt(0x5f)));
        case 1 -> b.append((char) (0x80 + rnd.nextInt(0x780)));
        case 2 -> b.append((char) (0x4e00 + rnd.nextInt(0x5000)));
        case 3 -> b.append((char) (0xd800 + rnd.nextInt(0x400)));
        default -> b.append((char) (0xdc00 + rnd.nextInt(0x400)));
      }
    }
    return b.toString();
  }

  private static byte[] bytes(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.getBytes(b.readerIndex(), out);
    return out;
  }
}
