package io.allot.server.distributor;

import io.allot.store.MemberRecord;
import io.allot.store.Safety;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How the distributor judges a member that has a member record (a worker on the SDK): by its lease in store time,
 * never by pings. It is live until its lease end plus the store's clock margin, which is the moment from which a
 * claim may take its units ({@link io.allot.store.Ownership#claim}): the table moves exactly when the units can. A
 * record expired for at least the cleanup age is stale and gets removed ({@link
 * io.allot.store.Membership#removeIfExpired}). Pure: no store, no clock of its own; immutable.
 */
final class LeaseJudge {
  /** The least cleanup age: 30 s. */
  static final Duration MIN_CLEANUP_AGE = Duration.ofSeconds(30);

  private final long marginMillis;
  private final long cleanupAgeMillis;

  /**
   * The verdict on a pool's records at one store time.
   *
   * @param live               ids whose lease (plus the margin) has not ended
   * @param down               ids whose lease ended at least the margin ago (stale ones included)
   * @param stale              records expired for at least the cleanup age, to remove
   * @param millisToNextChange store milliseconds until the next live member goes down ({@link Long#MAX_VALUE}: none)
   */
  record Verdict(Set<String> live, Set<String> down, List<MemberRecord> stale, long millisToNextChange) {}

  /**
   * @param clockMargin the store's clock margin ({@link Safety#clockMargin()})
   * @param cleanupAge  how long after its lease end an expired record is removed
   */
  LeaseJudge(Duration clockMargin, Duration cleanupAge) {
    this.marginMillis = clockMargin.toMillis();
    this.cleanupAgeMillis = Math.max(cleanupAge.toMillis(), marginMillis);
  }

  /** The judge for a store's safety settings: its clock margin, and a cleanup age of {@link #cleanupAge}. */
  static LeaseJudge of(Safety safety) {
    return new LeaseJudge(safety.clockMargin(), cleanupAge(safety));
  }

  /** 10 &times; the store's lost-state guard, at least {@link #MIN_CLEANUP_AGE}. */
  static Duration cleanupAge(Safety safety) {
    Duration tenGuards = safety.lostStateGuard().multipliedBy(10);
    return tenGuards.compareTo(MIN_CLEANUP_AGE) < 0 ? MIN_CLEANUP_AGE : tenGuards;
  }

  /** True while {@code r}'s lease, plus the clock margin, has not ended at store time {@code nowMillis}. */
  boolean live(MemberRecord r, long nowMillis) {
    return nowMillis < downAt(r);
  }

  /** Judges every record at store time {@code nowMillis}. */
  Verdict judge(Collection<MemberRecord> records, long nowMillis) {
    Set<String> live = new HashSet<>();
    Set<String> down = new HashSet<>();
    List<MemberRecord> stale = new ArrayList<>();
    long next = Long.MAX_VALUE;
    for (MemberRecord r : records) {
      Objects.requireNonNull(r, "record");
      if (live(r, nowMillis)) {
        live.add(r.id());
        next = Math.min(next, downAt(r) - nowMillis);
      } else {
        down.add(r.id());
        if (nowMillis - r.leaseUntilMillis() >= cleanupAgeMillis) {
          stale.add(r);
        }
      }
    }
    return new Verdict(Set.copyOf(live), Set.copyOf(down), List.copyOf(stale), next);
  }

  private long downAt(MemberRecord r) {
    long at = r.leaseUntilMillis() + marginMillis;
    return at < r.leaseUntilMillis() ? Long.MAX_VALUE : at; // overflow: a lease "forever"
  }
}
