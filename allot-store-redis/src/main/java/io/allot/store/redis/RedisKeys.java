package io.allot.store.redis;

import io.lettuce.core.cluster.SlotHash;

/**
 * The Redis key layout of {@link RedisStore}. User keys (lists, the distribution hash) are used as given, so the
 * layout stays compatible with the original Go distributor; the store's own keys are <em>companions</em> placed in
 * the same Redis Cluster slot as the key they belong to, so one Lua script may touch them together:
 *
 * <table>
 * <caption>companion keys</caption>
 * <tr><th>what</th><th>key (for hash key {@code K} without braces)</th></tr>
 * <tr><td>epoch of hash K</td><td>{@code {K}:allot:epoch}</td></tr>
 * <tr><td>fields pool G wrote last time</td><td>{@code {K}:allot:fields:G} (a set)</td></tr>
 * <tr><td>which pool wrote each field last</td><td>{@code {K}:allot:owners} (a hash field -> pool)</td></tr>
 * <tr><td>publication marks</td><td>{@code {K}:allot:marks} (a hash pool -> the epoch of its last publication;
 *     dropped when another pool overwrites one of its fields)</td></tr>
 * <tr><td>lease {@code K:G} (table lease)</td><td>{@code {K}:allot:lease:G}, token {@code {K}:allot:token:G}</td></tr>
 * <tr><td>lease N (no ':' in N)</td><td>{@code {allot:lease:N}}, token {@code {allot:lease:N}:token}</td></tr>
 * </table>
 *
 * <p>A pool is named by its services list {@code P}; its membership and ownership live next to it:
 *
 * <table>
 * <caption>pool companion keys</caption>
 * <tr><th>what</th><th>key (for services list {@code P} without braces)</th></tr>
 * <tr><td>member registrations</td>
 *     <td>{@code {P}:allot:members} (a hash id -> {@code "affinity|capacity|session|leaseUntilMillis[|attributes]"})</td></tr>
 * <tr><td>unit ownership</td>
 *     <td>{@code {P}:allot:ownership} (a hash unit -> {@code "member|session|token"})</td></tr>
 * <tr><td>last session number or fencing token issued in the pool</td><td>{@code {P}:allot:counter}</td></tr>
 * <tr><td>lost-state guard</td>
 *     <td>{@code {P}:allot:guard} (a hash: {@code incarnation} = the node's {@code run_id}, {@code not_before} =
 *     store time in ms before which claims are refused)</td></tr>
 * <tr><td>holds</td><td>{@code {P}:allot:holds} (a hash unit -> {@code "member|untilMillis"})</td></tr>
 * <tr><td>live routing weights</td><td>{@code {P}:allot:weights} (a hash version -> weight) and its revision
 *     {@code {P}:allot:weights:revision} ({@link RedisRouteWeights})</td></tr>
 * </table>
 *
 * <p>(Unit ownership is not called {@code owners}: {@code {K}:allot:owners} already names the field -> pool hash of
 * a distribution hash K.)
 *
 * <p>A key without a hash tag hashes by its whole name, so {@code {K}:x} lands in K's slot. A key that already has
 * a hash tag ({@code {tag}rest}) hashes by its tag, so its companions are {@code K + ":allot:..."} (no new braces).
 * A key with a '}' but no valid tag (e.g. <code>x{}</code>, <code>a}b</code>) hashes by its whole name, and wrapping it in
 * braces would not keep it: its companions are {@code "{" + T + "}" + K + ":allot:..."}, where the tag {@code T} is
 * {@code allot-slot-N} for the smallest N that hashes to K's slot ({@link #slotTag}), so every name has its
 * companions in its slot.
 *
 * <p>Lease names are split at their last ':': a name {@code P:S} is stored in P's slot
 * ({@code {P}:allot:lease:S}). That is what lets {@link RedisTables#publish} check the table lease
 * {@code hashKey + ":" + pool} in the hash's slot; other names containing ':' simply live in their prefix's slot.
 */
public final class RedisKeys {
  private RedisKeys() {}

  /** The epoch counter of distribution hash {@code hashKey}. */
  public static String epoch(String hashKey) {
    return companion(hashKey, "allot:epoch");
  }

  /** The set of fields {@code pool} wrote into {@code hashKey} last time. */
  public static String poolFields(String hashKey, String pool) {
    return companion(hashKey, "allot:fields:" + pool);
  }

  /** The hash field -> pool that wrote it last, for {@code hashKey}. */
  public static String owners(String hashKey) {
    return companion(hashKey, "allot:owners");
  }

  /** The hash pool -> epoch of its last publication into {@code hashKey} (see {@link RedisTables}). */
  public static String marks(String hashKey) {
    return companion(hashKey, "allot:marks");
  }

  /**
   * The registrations of pool {@code pool}: a hash member id -> {@code "affinity|capacity|session|leaseUntilMillis"},
   * followed by {@code "|" + attributes} when the member has attributes (see {@link RedisMembership}).
   */
  public static String members(String pool) {
    return companion(pool, "allot:members");
  }

  /** The unit ownership of pool {@code pool}: a hash unit -> {@code "member|session|token"}. */
  public static String ownership(String pool) {
    return companion(pool, "allot:ownership");
  }

  /** The last session number or fencing token issued in pool {@code pool} (one counter for both; no expiry). */
  public static String counter(String pool) {
    return companion(pool, "allot:counter");
  }

  /** The lost-state guard of pool {@code pool}: a hash {@code incarnation}, {@code not_before}. */
  public static String guard(String pool) {
    return companion(pool, "allot:guard");
  }

  /** The holds of pool {@code pool}: a hash unit -> {@code "member|untilMillis"}. */
  public static String holds(String pool) {
    return companion(pool, "allot:holds");
  }

  /** The live routing weights of pool {@code pool}: a hash version -> weight. */
  public static String routeWeights(String pool) {
    return companion(pool, "allot:weights");
  }

  /** The revision of the live routing weights of pool {@code pool} (a counter; no expiry). */
  public static String routeWeightsRevision(String pool) {
    return companion(pool, "allot:weights:revision");
  }

  /** The key holding lease {@code name} (value {@code "<token>:<holder>"}, with a PX expiry). */
  public static String lease(String name) {
    int i = splitAt(name);
    return i < 0 ? "{allot:lease:" + name + "}" : companion(name.substring(0, i), "allot:lease:" + name.substring(i + 1));
  }

  /** The key holding the last fencing token issued for lease {@code name} (no expiry). */
  public static String token(String name) {
    int i = splitAt(name);
    return i < 0 ? lease(name) + ":token" : companion(name.substring(0, i), "allot:token:" + name.substring(i + 1));
  }

  /** {@code key}'s companion named {@code suffix}, in {@code key}'s slot (see the class comment). */
  static String companion(String key, String suffix) {
    if (hasHashTag(key)) {
      return key + ":" + suffix;
    }
    if (key.indexOf('}') >= 0) { // "{" + key + "}" would end the tag at the key's own '}'
      return "{" + slotTag(SlotHash.getSlot(key)) + "}" + key + ":" + suffix;
    }
    return "{" + key + "}:" + suffix;
  }

  /** {@code allot-slot-N} for the smallest N &ge; 0 that Redis Cluster hashes to {@code slot}. */
  static String slotTag(int slot) {
    return SlotTags.TAGS[slot];
  }

  /** The tag of every slot, computed once on first use (about 170,000 CRC16s of short strings: milliseconds). */
  private static final class SlotTags {
    static final String[] TAGS = new String[SlotHash.SLOT_COUNT];

    static {
      int missing = TAGS.length;
      for (int n = 0; missing > 0; n++) {
        String tag = "allot-slot-" + n;
        int slot = SlotHash.getSlot(tag);
        if (TAGS[slot] == null) {
          TAGS[slot] = tag;
          missing--;
        }
      }
    }
  }

  /** Whether Redis Cluster hashes {@code key} by a tag: a '{' followed later by a '}' with something between. */
  static boolean hasHashTag(String key) {
    int open = key.indexOf('{');
    if (open < 0) {
      return false;
    }
    int close = key.indexOf('}', open + 1);
    return close > open + 1;
  }

  private static int splitAt(String name) {
    int i = name.lastIndexOf(':');
    return i > 0 && i < name.length() - 1 ? i : -1;
  }

  /**
   * Throws {@link IllegalArgumentException} unless every key is in the slot of {@code anchor} (needed in Redis
   * Cluster for one script to touch them); the message names the key and {@code what} was tried. With the layout
   * above this holds for every name; the check guards the layout itself.
   */
  static void checkSameSlot(String what, String anchor, String... keys) {
    int slot = SlotHash.getSlot(anchor);
    for (String k : keys) {
      if (SlotHash.getSlot(k) != slot) {
        throw new IllegalArgumentException("cannot " + what + " in Redis Cluster: key '" + k
            + "' does not hash to the slot of '" + anchor + "'");
      }
    }
  }
}
