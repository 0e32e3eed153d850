package io.allot.tasks.status;

import io.allot.core.assign.TableCodec;
import io.allot.store.MemberRecord;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@link TaskStatuses#derive} needs to know about a pool besides the task itself, read once per request.
 * Immutable.
 *
 * @param nowMillis the store's time ({@link io.allot.store.StoreClock}), epoch milliseconds
 * @param members   the pool's registrations by id, expired ones included ({@link io.allot.store.Membership#members()})
 * @param table     the published table: member id to the units of its field, in order, as
 *                  {@link io.allot.store.Tables#units(String)} reads it; a unit listed under two members counts for
 *                  the first in byte order only ({@link TableCodec#withoutDuplicates}), as the distributor and the
 *                  router read it
 * @param costs     the cost of every live task of the pool by name; table units that are not here cost nothing
 * @param clockMarginMillis the store's clock margin ({@link io.allot.store.Safety#clockMargin()}): a claim whose
 *                  lease ended less than this long ago may still be running (claims wait for it too)
 */
public record PoolState(long nowMillis, Map<String, MemberRecord> members, Map<String, List<String>> table,
    Map<String, Integer> costs, long clockMarginMillis) {

  /** A pool state with no clock margin. */
  public PoolState(long nowMillis, Map<String, MemberRecord> members, Map<String, List<String>> table,
      Map<String, Integer> costs) {
    this(nowMillis, members, table, costs, 0);
  }

  public PoolState {
    members = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(members, "members")));
    table = TableCodec.withoutDuplicates(Objects.requireNonNull(table, "table"), duplicate -> { });
    costs = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(costs, "costs")));
    if (clockMarginMillis < 0) {
      throw new IllegalArgumentException("clockMarginMillis must be >= 0 but was " + clockMarginMillis);
    }
  }

  /** The sum of the costs of the live tasks the table gives {@code member} (0 without a field). */
  public long used(String member) {
    long sum = 0;
    for (String unit : table.getOrDefault(member, List.of())) {
      sum += costs.getOrDefault(unit, 0);
    }
    return sum;
  }

  /** True if task {@code name} is in some member's field of the table. */
  public boolean placed(String name) {
    for (List<String> units : table.values()) {
      if (units.contains(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The free capacity of {@code m}: its capacity minus {@link #used}, at least 0; {@link Long#MAX_VALUE} for a member
   * without a limit ({@link Integer#MAX_VALUE}).
   */
  public long free(MemberRecord m) {
    if (m.capacity() == Integer.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, m.capacity() - used(m.id()));
  }
}
