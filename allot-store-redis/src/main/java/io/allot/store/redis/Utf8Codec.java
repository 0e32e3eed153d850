package io.allot.store.redis;

import io.lettuce.core.codec.StringCodec;
import io.netty.buffer.ByteBufUtil;

/**
 * Lettuce's UTF-8 string codec, telling the exact encoded size of each argument: Lettuce then writes the argument
 * straight into the command's buffer, where with an estimate it encodes into a temporary pooled buffer and copies it
 * (per argument: a batched job call sends two per job). The size is {@link ByteBufUtil#utf8Bytes}, exact for what
 * {@link StringCodec#UTF8} writes ({@code ByteBufUtil.writeUtf8}: an unpaired surrogate as one '?').
 * {@code Utf8CodecTest} checks the size against what is written; the job-queue contract test sends unusual keys and
 * data through a server.
 */
final class Utf8Codec extends StringCodec {
  /** The codec of every connection of the Redis store. */
  static final Utf8Codec UTF8 = new Utf8Codec();

  private Utf8Codec() {
    super(java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public int estimateSize(Object keyOrValue) {
    return keyOrValue == null ? 0 : ByteBufUtil.utf8Bytes((CharSequence) keyOrValue);
  }

  @Override
  public boolean isEstimateExact() {
    return true;
  }
}
