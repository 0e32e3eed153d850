package io.allot.core.hash;

/**
 * The 64-bit hashes allot's stateless strategies use. Fixed forever: changing them would move
 * units in every deployed fleet, so they are pinned by test vectors.
 */
public final class Hashing {
  private Hashing() {}

  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  /**
   * Hash of a string: FNV-1a over its UTF-16 code units (two bytes each, low first), then the
   * SplitMix64 finaliser. Fast and well mixed; not cryptographic.
   */
  public static long hash64(String s) {
    long h = FNV_OFFSET;
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      h = (h ^ (c & 0xff)) * FNV_PRIME;
      h = (h ^ (c >>> 8)) * FNV_PRIME;
    }
    return mix64(h ^ s.length());
  }

  /** SplitMix64 / MurmurHash3 fmix64-style finaliser: a bijection that spreads every input bit. */
  public static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /**
   * A uniform double in the open interval (0, 1) from a 64-bit hash (53 significant bits, never 0
   * and never 1).
   */
  public static double unitInterval(long h) {
    return ((h >>> 11) + 0.5) * 0x1.0p-53;
  }
}
