package io.allot.store;

import java.util.List;
import java.util.Map;

/**
 * The original Go distributor's layout, kept as its own compatibility role: a services list per pool where a
 * service {@code LPUSH}es its {@code host:port}, a work-units list, and the distribution hash. Redis list and hash
 * semantics: a missing key reads as empty, an empty list or hash does not exist, and using a list key as a hash (or
 * the reverse) fails with {@link IllegalStateException} (Redis {@code WRONGTYPE}). Writes through this role that
 * change a list are announced on {@link Topic#key(String)}; a service that writes the list directly (an original
 * {@code LPUSH}) is announced only by Redis keyspace notifications, when the server has them on.
 */
public interface SeedKeys {

  /** {@code LRANGE key 0 -1}: the whole list, head first; empty if missing. */
  List<String> list(String key);

  /** {@code LPUSH key value} only if {@code value} is not in the list yet, atomically; true if added. */
  boolean addToList(String key, String value);

  /** {@code LREM key 0 value}: removes every occurrence; true if at least one was removed. */
  boolean removeFromList(String key, String value);

  /** Atomically replaces the list with {@code values} in this order (head first); an empty list deletes the key. */
  void replaceList(String key, List<String> values);

  /** {@code HGETALL key}; empty if missing. */
  Map<String, String> hash(String key);

  /** {@code HGET key field}; null if the hash or the field is missing. */
  String hashField(String key, String field);
}
