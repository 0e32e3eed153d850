package io.allot.core.assign;

import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * The original distributor's algorithm ({@code PutToMatchingTable} of
 * github.com/scientificideas/distributor with github.com/serialx/hashring @22c0c7ab6b1b),
 * byte-identical, in O(N log N) instead of the original's O(50&middot;N&sup2;).
 *
 * <p><b>The original.</b> Every unit {@code u} puts 50 points on a hash ring, at the keys {@code
 * u + "-" + j} for j = 0..49. A key's position is its MD5 digest read as two little-endian signed
 * 64-bit integers (bytes 0&ndash;7 = High, 8&ndash;15 = Low), ordered by High, then Low. The M
 * members are taken in byte order ({@link Names#BYTE_ORDER}, Go's {@code sort.Strings}); each asks
 * for {@code k = max(1, N / M)} units, the last one for {@code k + N % M} when N &gt; M. A member's
 * own id is hashed the same way; from the first ring point strictly greater than it (wrapping to
 * the first point) the ring is walked clockwise and the first k distinct units met are its units,
 * in the order met. They leave the ring (all 50 points) before the next member asks. A member that
 * asks for more units than are left on the ring (or finds the ring empty) gets none. The table
 * lists each member's units in the order they were collected, which is the order of the original's
 * {@code "u1,u2"} hash values.
 *
 * <p><b>How it is fast.</b> The 50&middot;N points are hashed once, in parallel (the JDK's MD5, {@link
 * RingHash}), into primitive arrays (High plus the point's index {@code unit * 50 + j}; Low is
 * recomputed only where two Highs are equal), bucketed on the top bits of High and
 * sorted per bucket. Removed units are not taken off the ring: an alive flag per unit makes the
 * walk skip their points, and the ring is compacted whenever more than half of it is dead. Total
 * work is O(50&middot;N) hashing, an O(50&middot;N) bucket sort and O(50&middot;N) walking, plus an
 * O(log N) search per member. Peak memory is about 20 bytes per point (1 GB at a million units).
 * At most {@value #MAX_UNITS} units (50&middot;N must fit an {@code int}).
 *
 * <p><b>allot adaptations</b> (the original has neither affinity nor capacity):
 *
 * <ul>
 *   <li>Members with affinity 0 do not take part at all: they are removed before M, k and the
 *       order are computed, and appear in the table with no units. Affinities above 0 are
 *       otherwise ignored (the original has no weights).
 *   <li>Capacity: a member whose k exceeds its capacity asks for k = capacity instead (a
 *       deviation from the original, only when a capacity is set); with capacity 0 it gets
 *       nothing. Units nobody collected are listed in {@link Table#unassigned()}, in byte order;
 *       with the original's arithmetic that happens only through capacity.
 *   <li>Inputs are validated ({@link Inputs}): duplicate units are rejected, where the original
 *       ignored a repeated unit. {@code previous} is ignored; the result depends only on the
 *       members (ids, affinity 0 or not, capacities) and the set of units, not on their order.
 *   <li>Two distinct points with the same 128-bit MD5 position (a real MD5 collision between two
 *       keys) are ordered by unit in byte order, then by j; the original's order for that case
 *       depends on its unstable sort. With no such collision the result is the original's.
 * </ul>
 */
public final class SeedRingAssigner implements Assigner {
  /** Points each unit puts on the ring (the original's weight). */
  static final int POINTS_PER_UNIT = 50; // at most 100: j has one or two digits
  /** The most units one ring can hold: 50 points each, indexed by {@code int}. */
  public static final int MAX_UNITS = Integer.MAX_VALUE / POINTS_PER_UNIT;

  private static final int PARALLEL_MIN_UNITS = 1_000;
  private static final int MAX_BUCKET_BITS = 20;
  private static final int POINTS_PER_BUCKET = 32; // a bucket this small is sorted by insertion sort

  public SeedRingAssigner() {}

  @Override
  public String name() {
    return "seed-ring";
  }

  @Override
  public Table assign(Collection<Member> members, Collection<String> units, Table previous) {
    Member[] sorted = Inputs.sortedMembers(members);
    String[] us = Inputs.units(units);
    if (us.length > MAX_UNITS) {
      throw new IllegalArgumentException(
          "seed-ring handles at most " + MAX_UNITS + " units; got " + us.length);
    }
    Table.Builder out = Table.builder().trusted();
    List<Member> active = new ArrayList<>(sorted.length);
    for (Member m : sorted) {
      out.member(m.id());
      if (m.affinity() > 0) {
        active.add(m);
      }
    }
    int n = us.length;
    int m = active.size();
    if (n == 0) {
      return out.build();
    }
    boolean[] alive = new boolean[n];
    Arrays.fill(alive, true);
    int aliveUnits = n;
    if (m > 0) {
      Ring ring = Ring.build(us);
      int base = Math.max(1, n / m);
      long[] key = new long[2];
      RingHash hash = new RingHash();
      for (int i = 0; i < m; i++) {
        Member member = active.get(i);
        int k = base;
        if (i == m - 1 && n > m) {
          k = base + n % m;
        }
        if (member.hasCapacityLimit() && k > member.capacity()) {
          k = member.capacity();
        }
        if (k == 0 || aliveUnits == 0 || k > aliveUnits) {
          continue; // the original's GetNodes fails: nothing for this member
        }
        if (ring.size > 2L * POINTS_PER_UNIT * aliveUnits) {
          ring.compact(alive);
        }
        byte[] idBytes = member.id().getBytes(StandardCharsets.UTF_8);
        hash.digest(idBytes, idBytes.length, key);
        String[] got = ring.collect(ring.upperBound(key[0], key[1]), k, alive);
        aliveUnits -= k;
        out.putOwned(member.id(), got);
      }
    }
    if (aliveUnits > 0) {
      String[] left = new String[aliveUnits];
      int c = 0;
      for (int u = 0; u < n; u++) {
        if (alive[u]) {
          left[c++] = us[u];
        }
      }
      Arrays.sort(left, Names.BYTE_ORDER);
      for (String u : left) {
        out.unassigned(u);
      }
    }
    return out.build();
  }

  /**
   * The ring: every point's High in ring order, with the point's index {@code unit * 50 + j}.
   * Points of removed units stay until {@link #compact} drops them.
   */
  static final class Ring {
    final String[] units;
    final long[] high;
    final int[] point;
    int size;

    Ring(String[] units, long[] high, int[] point) {
      this.units = units;
      this.high = high;
      this.point = point;
      this.size = high.length;
    }

    /** Hashes and sorts the 50 points of every unit. */
    static Ring build(String[] units) {
      int n = units.length;
      int total = n * POINTS_PER_UNIT;
      // a parallel stream runs on the common pool plus the calling thread
      int threads = ForkJoinPool.getCommonPoolParallelism() + 1;
      boolean parallel = n >= PARALLEL_MIN_UNITS && Runtime.getRuntime().availableProcessors() > 1;
      int chunks = parallel ? Math.min(n / 256 + 1, 4 * threads) : 1;
      int bits = bucketBits(total);
      int buckets = 1 << bits;
      int shift = 64 - bits;

      // 1. hash every point (in unit order) and count bucket sizes per chunk
      int[][] counts = new int[chunks][];
      long[] raw = hashPoints(units, chunks, parallel, shift, buckets, counts);

      // 2. bucket starts; each chunk's counts become its write cursors
      int[] bucketStart = new int[buckets + 1];
      int pos = 0;
      for (int b = 0; b < buckets; b++) {
        bucketStart[b] = pos;
        for (int c = 0; c < chunks; c++) {
          int cnt = counts[c][b];
          counts[c][b] = pos;
          pos += cnt;
        }
      }
      bucketStart[buckets] = pos;

      // 3. scatter into bucket order
      long[] high = new long[total];
      int[] point = new int[total];
      scatter(raw, n, chunks, parallel, shift, counts, high, point);
      raw = null; // let the unsorted copy go before sorting

      // 4. sort each bucket (by High, then Low where Highs are equal)
      Ring ring = new Ring(units, high, point);
      int tasks = parallel ? Math.min(buckets, 8 * threads) : 1;
      run(
          tasks,
          parallel,
          t -> {
            int fromB = (int) ((long) buckets * t / tasks);
            int toB = (int) ((long) buckets * (t + 1) / tasks);
            for (int b = fromB; b < toB; b++) {
              int lo = bucketStart[b];
              int hi = bucketStart[b + 1];
              if (hi - lo > 1) {
                KeySort.sort(high, point, lo, hi);
                ring.orderTies(lo, hi);
              }
            }
          });
      return ring;
    }

    private static long[] hashPoints(
        String[] units, int chunks, boolean parallel, int shift, int buckets, int[][] counts) {
      int n = units.length;
      long[] raw = new long[n * POINTS_PER_UNIT];
      run(
          chunks,
          parallel,
          c -> {
            int[] count = new int[buckets];
            int from = (int) ((long) n * c / chunks);
            int to = (int) ((long) n * (c + 1) / chunks);
            // the keys of one unit differ only in their digits: the name and '-' are written once
            RingHash hash = new RingHash();
            byte[] key = new byte[64];
            for (int u = from; u < to; u++) {
              byte[] name = units[u].getBytes(StandardCharsets.UTF_8);
              int len = name.length;
              if (key.length < len + 3) {
                key = new byte[len + 3];
              }
              System.arraycopy(name, 0, key, 0, len);
              key[len] = '-';
              int p = u * POINTS_PER_UNIT;
              for (int j = 0; j < POINTS_PER_UNIT; j++, p++) {
                int keyLen;
                if (j < 10) {
                  key[len + 1] = (byte) ('0' + j);
                  keyLen = len + 2;
                } else {
                  key[len + 1] = (byte) ('0' + j / 10);
                  key[len + 2] = (byte) ('0' + j % 10);
                  keyLen = len + 3;
                }
                long high = hash.high(key, keyLen);
                raw[p] = high;
                count[bucket(high, shift)]++;
              }
            }
            counts[c] = count;
          });
      return raw;
    }

    private static void scatter(
        long[] raw, int n, int chunks, boolean parallel, int shift, int[][] cursors, long[] high, int[] point) {
      run(
          chunks,
          parallel,
          c -> {
            int[] cursor = cursors[c];
            int from = (int) ((long) n * c / chunks) * POINTS_PER_UNIT;
            int to = (int) ((long) n * (c + 1) / chunks) * POINTS_PER_UNIT;
            for (int p = from; p < to; p++) {
              long h = raw[p];
              int i = cursor[bucket(h, shift)]++;
              high[i] = h;
              point[i] = p;
            }
          });
    }

    /** Index of the first point strictly after the key, wrapping to 0 (Go's GetNodePos). */
    int upperBound(long keyHigh, long keyLow) {
      int lo = 0;
      int hi = size;
      while (lo < hi) { // first index with high >= keyHigh
        int mid = (lo + hi) >>> 1;
        if (high[mid] < keyHigh) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      long[] hl = null;
      while (lo < size && high[lo] == keyHigh) { // rare: same High, compare Low
        if (hl == null) {
          hl = new long[2];
        }
        digestOf(point[lo], hl);
        if (keyLow < hl[1]) {
          break;
        }
        lo++;
      }
      return lo == size ? 0 : lo;
    }

    /**
     * Walks clockwise from {@code start} and takes the first {@code k} alive units met, marking
     * them dead. The caller guarantees {@code 1 <= k <=} alive units.
     */
    String[] collect(int start, int k, boolean[] alive) {
      String[] got = new String[k];
      int c = 0;
      int i = start;
      int[] pt = point;
      int sz = size;
      while (c < k) {
        int u = pt[i] / POINTS_PER_UNIT;
        if (alive[u]) {
          alive[u] = false;
          got[c++] = units[u];
        }
        if (++i == sz) {
          i = 0;
        }
      }
      return got;
    }

    /** Drops the points of dead units, keeping ring order. */
    void compact(boolean[] alive) {
      int w = 0;
      for (int r = 0; r < size; r++) { // branch-free: half the points are dead, unpredictably
        int p = point[r];
        high[w] = high[r];
        point[w] = p;
        w += alive[p / POINTS_PER_UNIT] ? 1 : 0;
      }
      size = w;
    }

    /** Puts each run of equal Highs in [lo, hi) in order of Low (then unit, then j). */
    void orderTies(int lo, int hi) {
      for (int s = lo; s < hi - 1; ) {
        int e = s + 1;
        while (e < hi && high[e] == high[s]) {
          e++;
        }
        if (e - s > 1) {
          orderRun(s, e);
        }
        s = e;
      }
    }

    private void orderRun(int s, int e) {
      int len = e - s;
      long[] lows = new long[len];
      long[] hl = new long[2];
      for (int i = 0; i < len; i++) {
        digestOf(point[s + i], hl);
        lows[i] = hl[1];
      }
      for (int i = 1; i < len; i++) { // insertion sort: runs are tiny
        long l = lows[i];
        int p = point[s + i];
        int j = i - 1;
        while (j >= 0 && compareTie(l, p, lows[j], point[s + j]) < 0) {
          lows[j + 1] = lows[j];
          point[s + j + 1] = point[s + j];
          j--;
        }
        lows[j + 1] = l;
        point[s + j + 1] = p;
      }
    }

    private int compareTie(long lowA, int pa, long lowB, int pb) {
      if (lowA != lowB) {
        return Long.compare(lowA, lowB);
      }
      int c = Names.compareBytes(units[pa / POINTS_PER_UNIT], units[pb / POINTS_PER_UNIT]);
      return c != 0 ? c : Integer.compare(pa % POINTS_PER_UNIT, pb % POINTS_PER_UNIT);
    }

    /** MD5 of the key of point {@code p} ({@code unit + "-" + j}) into {@code hl}. Rare: only for equal Highs. */
    void digestOf(int p, long[] hl) {
      byte[] key =
          (units[p / POINTS_PER_UNIT] + "-" + (p % POINTS_PER_UNIT)).getBytes(StandardCharsets.UTF_8);
      new RingHash().digest(key, key.length, hl);
    }
  }

  /**
   * A key's position on the ring, as the original reads it (github.com/serialx/hashring's {@code Int64PairHashKey}):
   * its MD5 digest's bytes 0&ndash;7 as a little-endian signed {@code long} (High) and bytes 8&ndash;15 likewise
   * (Low). The JDK's {@link MessageDigest} (intrinsified on common CPUs); one instance per thread, not thread-safe.
   * MD5 is used only because the original places its points with it, not for security.
   */
  static final class RingHash {
    private static final VarHandle LE_LONG =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final MessageDigest md;
    private final byte[] out = new byte[16];

    RingHash() {
      try {
        md = MessageDigest.getInstance("MD5");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("every Java platform has MD5", e);
      }
    }

    /** High of {@code key[0..len)}. */
    long high(byte[] key, int len) {
      digest(key, len);
      return (long) LE_LONG.get(out, 0);
    }

    /** High into {@code hl[0]}, Low into {@code hl[1]}. */
    void digest(byte[] key, int len, long[] hl) {
      digest(key, len);
      hl[0] = (long) LE_LONG.get(out, 0);
      hl[1] = (long) LE_LONG.get(out, 8);
    }

    private void digest(byte[] key, int len) {
      md.update(key, 0, len);
      try {
        md.digest(out, 0, out.length);
      } catch (DigestException e) {
        throw new IllegalStateException("16 bytes hold an MD5 digest", e);
      }
    }
  }

  /** Bits of High used for buckets: about 32 points per bucket, at most 2^20 buckets. */
  static int bucketBits(int total) {
    int target = total / POINTS_PER_BUCKET;
    return target < 2 ? 0 : Math.min(MAX_BUCKET_BITS, 31 - Integer.numberOfLeadingZeros(target));
  }

  /** Bucket of a High: its top bits, in signed order. */
  private static int bucket(long h, int shift) {
    return shift == 64 ? 0 : (int) ((h ^ Long.MIN_VALUE) >>> shift);
  }

  private static void run(int tasks, boolean parallel, java.util.function.IntConsumer body) {
    IntStream r = IntStream.range(0, tasks);
    if (parallel && tasks > 1) {
      r = r.parallel();
    }
    r.forEach(body);
  }
}
