package io.allot.tasks.status;

import io.allot.store.MemberRecord;
import io.allot.store.UnitOwner;
import io.allot.store.tasks.TaskSpec;
import java.time.Duration;
import java.util.Objects;

/**
 * Derives a long-running task's status from the store's records: a pure function, no store access, no clock but
 * the store time it is given. The rules, in order:
 *
 * <ol>
 *   <li>A claim is <em>live</em> when the unit has an owner ({@link io.allot.store.Ownership#ownersOf}) whose
 *       member's registration is the claim's session ({@code MemberRecord.session() == owner.session()}) and whose
 *       lease is live at store time now ({@link MemberRecord#liveAt}). The view's owner and token are those of a
 *       live claim, else null, whatever the status.</li>
 *   <li>A deleted spec (a tombstone) is {@link TaskStatus#ON_DELETING} while a claim may still be running: its
 *       session is the member's current one and its lease has not been over for the store's clock margin (the wait
 *       a claim by another member needs too); else {@link TaskStatus#DELETED}: nobody can run it any more.</li>
 *   <li>A live spec with a live claim and a confirmed run under that claim's token ({@code spec.run().token() ==
 *       owner.token()}) is {@link TaskStatus#FAILED} if its fault says {@code failing}, else
 *       {@link TaskStatus#PROCESSING}.</li>
 *   <li>Any other live spec (no live claim, no run, or a run under an older token) is {@link TaskStatus#CREATED} if
 *       the table places it on some member (in any member's field), or if some live member with affinity &gt; 0 has
 *       a free capacity of at least its cost (free = capacity - the sum of the costs of the live tasks the table
 *       gives that member; a member without a limit always has room).</li>
 *   <li>Otherwise it is {@link TaskStatus#PENDING}, with the reason: {@code no live member in pool}, {@code no live
 *       member with affinity > 0 in pool}, or {@code cost C exceeds the largest free capacity F of a live
 *       member}.</li>
 * </ol>
 *
 * The inputs are read one after the other, not atomically; a status derived across a change is corrected by the
 * next read. Statuses never depend on a host clock.
 */
public final class TaskStatuses {
  private TaskStatuses() {}

  /**
   * The status of {@code spec}.
   *
   * @param spec  the task's spec, live or tombstone
   * @param owner the current owner of its unit (expired ones included), or null
   * @param pool  the pool's members, table, costs and the store time now
   */
  public static DerivedStatus derive(TaskSpec spec, UnitOwner owner, PoolState pool) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(pool, "pool");
    boolean live = liveClaim(owner, pool);
    String who = live ? owner.member() : null;
    Long token = live ? owner.token() : null;
    if (spec.deleted()) {
      return new DerivedStatus(mayStillRun(owner, pool) ? TaskStatus.ON_DELETING : TaskStatus.DELETED, who, token, null);
    }
    if (live && spec.run() != null && spec.run().token() == owner.token()) {
      boolean failing = spec.fault() != null && spec.fault().failing();
      return new DerivedStatus(failing ? TaskStatus.FAILED : TaskStatus.PROCESSING, who, token, null);
    }
    if (pool.placed(spec.name())) {
      return new DerivedStatus(TaskStatus.CREATED, who, token, null);
    }
    boolean anyLive = false;
    boolean anyWeighted = false;
    long largestFree = 0;
    for (MemberRecord m : pool.members().values()) {
      if (!m.liveAt(pool.nowMillis())) {
        continue;
      }
      anyLive = true;
      if (m.affinity() <= 0) {
        continue;
      }
      anyWeighted = true;
      largestFree = Math.max(largestFree, pool.free(m));
    }
    if (anyWeighted && largestFree >= spec.cost()) {
      return new DerivedStatus(TaskStatus.CREATED, who, token, null);
    }
    String reason = !anyLive ? "no live member in pool"
        : !anyWeighted ? "no live member with affinity > 0 in pool"
        : "cost " + spec.cost() + " exceeds the largest free capacity " + largestFree + " of a live member";
    return new DerivedStatus(TaskStatus.PENDING, who, token, reason);
  }

  /**
   * True if the tombstone {@code spec} may be purged at the pool's store time: it was deleted at least {@code
   * retention} ago ({@link #retentionOver}) and nobody can run it any more (its status is {@link TaskStatus#DELETED}:
   * {@code owner} is not a claim that {@linkplain #mayStillRun may still run}). False for a live spec.
   *
   * @param owner the current owner of its unit (expired ones included), or null
   */
  public static boolean purgeable(TaskSpec spec, UnitOwner owner, PoolState pool, Duration retention) {
    return retentionOver(spec, pool.nowMillis(), retention) && !mayStillRun(owner, pool);
  }

  /**
   * True if {@code spec} is a tombstone deleted at least {@code retention} before {@code nowMillis} (store time): the
   * first condition of {@link #purgeable}, which needs no owner (a caller reads the owners of these only).
   */
  public static boolean retentionOver(TaskSpec spec, long nowMillis, Duration retention) {
    return spec.deleted() && nowMillis - spec.deletedMillis() >= retention.toMillis();
  }

  /**
   * True if the claim {@code owner} may still be running: its member's current session, and its lease not over for
   * at least the clock margin at the pool's store time.
   */
  public static boolean mayStillRun(UnitOwner owner, PoolState pool) {
    if (owner == null) {
      return false;
    }
    MemberRecord m = pool.members().get(owner.member());
    return m != null && m.session() == owner.session()
        && m.leaseUntilMillis() + pool.clockMarginMillis() > pool.nowMillis();
  }

  /** True if {@code owner} is a live claim: its member's current session, lease live at the pool's store time. */
  public static boolean liveClaim(UnitOwner owner, PoolState pool) {
    if (owner == null) {
      return false;
    }
    MemberRecord m = pool.members().get(owner.member());
    return m != null && m.session() == owner.session() && m.liveAt(pool.nowMillis());
  }
}
