package io.allot.store;

import io.allot.core.assign.TableCodec;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Assignment tables: for each table key, {@code member -> "u1,u2,..."} (the original distribution hash's encoding)
 * and an epoch that grows with every publication. Several pools (distributors of different services lists) may
 * share one table; each owns the fields it wrote last.
 *
 * <p><b>The encoding is this role's.</b> A field's text is encoded and decoded by one codec,
 * {@link io.allot.core.assign.TableCodec} (in allot-core, so the assignment code shares it): writers encode with
 * {@code TableCodec.encode}, readers read decoded units with {@link #units(String)} and
 * {@link #units(String, String)}, never by splitting {@link #read} themselves. {@link #read} stays for what needs the
 * exact text (the publisher's comparison with what it published, tools that show the raw hash).
 */
public interface Tables {

  /**
   * Atomically, if {@code lease} is still the current lease for its name: sets every field of {@code fields},
   * deletes the fields this pool wrote last time that are not in {@code fields} (never a field another pool wrote
   * since), increments the table's epoch and announces it on {@link Topic#table(String)} (message: the new epoch).
   *
   * <p>A store may send and write only the difference to the pool's previous publication by the same client under
   * the same lease, when it can tell that the store still holds that publication (the Redis and PostgreSQL stores
   * keep a per-pool publication mark for that); the result is always that of the full publication. Callers that
   * pass the unchanged values as the very same {@code String} objects as last time make the difference cheap.
   *
   * @param lease the pool's lease, acquired under {@link #leaseName(String, String) leaseName(tableKey, pool)},
   *              otherwise {@link IllegalArgumentException}
   * @return the new epoch
   * @throws FencedException if the lease is not current (nothing changed)
   */
  long publish(Lease lease, String tableKey, String pool, Map<String, String> fields);

  /** The epoch of {@code tableKey}: 0 if never published. */
  long epoch(String tableKey);

  /** Every field of {@code tableKey} (member to its units, comma-separated); empty if missing. */
  Map<String, String> read(String tableKey);

  /** One member's field of {@code tableKey} (its units, comma-separated); empty if the member has no field. */
  Optional<String> read(String tableKey, String member);

  /**
   * Every field of {@code tableKey} decoded ({@link io.allot.core.assign.TableCodec#decode(Map)}): member to its
   * units in field order, members in byte order, a member with an empty field listed with no units; empty if the
   * table is missing. A unit listed under two members is listed under both: a reader that needs one owner per unit
   * applies {@link io.allot.core.assign.TableCodec#withoutDuplicates}. Unmodifiable.
   */
  default Map<String, List<String>> units(String tableKey) {
    return TableCodec.decode(read(tableKey));
  }

  /**
   * One member's units in {@code tableKey} ({@link io.allot.core.assign.TableCodec#decode(String)}); empty if the
   * member has no field or an empty one. Unmodifiable.
   */
  default List<String> units(String tableKey, String member) {
    return TableCodec.decode(read(tableKey, member).orElse(null));
  }

  /**
   * The lease name under which {@code pool} publishes into {@code tableKey}: {@code tableKey + ":" + pool}, where
   * every '%' and ':' of the pool is escaped as {@code %25} and {@code %3A}, so the name splits unambiguously at its
   * last ':' (a store may place the lease next to the table key, as Redis Cluster does). Any non-empty names are
   * accepted, as the original distributor accepts any Redis key.
   *
   * @throws IllegalArgumentException if {@code tableKey} or {@code pool} is empty
   */
  static String leaseName(String tableKey, String pool) {
    if (tableKey == null || tableKey.isEmpty()) {
      throw new IllegalArgumentException("table key must not be empty");
    }
    if (pool == null || pool.isEmpty()) {
      throw new IllegalArgumentException("pool must not be empty");
    }
    return tableKey + ":" + pool.replace("%", "%25").replace(":", "%3A");
  }
}
