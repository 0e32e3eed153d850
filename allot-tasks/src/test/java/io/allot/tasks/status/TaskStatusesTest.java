package io.allot.tasks.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.UnitOwner;
import io.allot.store.tasks.TaskFault;
import io.allot.store.tasks.TaskRun;
import io.allot.store.tasks.TaskSpec;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each rule of {@link TaskStatuses#derive}, on hand-made records: no store, no threads. */
class TaskStatusesTest {
  static final long NOW = 1_000_000;

  static TaskSpec live(String name, int cost) {
    return new TaskSpec(name, "{}", cost, 1, 10, 10, 0, null, null);
  }

  static TaskSpec running(String name, long token, TaskFault fault) {
    return new TaskSpec(name, "{}", 1, 1, 10, 10, 0, new TaskRun("m1", token, 1, 20), fault);
  }

  static TaskSpec tombstone(String name) {
    return new TaskSpec(name, "{}", 1, 1, 10, 10, 30, null, null);
  }

  static MemberRecord member(String id, long session, boolean live, int affinity, int capacity) {
    return new MemberRecord(id, MemberMeta.of(affinity, capacity), session, live ? NOW + 5000 : NOW - 1);
  }

  static PoolState pool(Map<String, List<String>> table, Map<String, Integer> costs, MemberRecord... members) {
    Map<String, MemberRecord> m = new LinkedHashMap<>();
    for (MemberRecord r : members) {
      m.put(r.id(), r);
    }
    return new PoolState(NOW, m, table, costs);
  }

  static final UnitOwner OWNER = new UnitOwner("t", "m1", 7, 42);

  @Test
  void deletedWithLiveClaimIsOnDeleting() {
    DerivedStatus d = TaskStatuses.derive(tombstone("t"), OWNER, pool(Map.of(), Map.of(), member("m1", 7, true, 1, 10)));
    assertThat(d.state()).isEqualTo(TaskStatus.ON_DELETING);
    assertThat(d.owner()).isEqualTo("m1");
    assertThat(d.token()).isEqualTo(42L);
  }

  @Test
  void deletedWithExpiredLeaseOrOtherSessionOrNoOwnerIsDeleted() {
    assertThat(TaskStatuses.derive(tombstone("t"), OWNER, pool(Map.of(), Map.of(), member("m1", 7, false, 1, 10)))
        .state()).isEqualTo(TaskStatus.DELETED);
    assertThat(TaskStatuses.derive(tombstone("t"), OWNER, pool(Map.of(), Map.of(), member("m1", 8, true, 1, 10)))
        .state()).isEqualTo(TaskStatus.DELETED);
    DerivedStatus d = TaskStatuses.derive(tombstone("t"), null, pool(Map.of(), Map.of(), member("m1", 7, true, 1, 10)));
    assertThat(d.state()).isEqualTo(TaskStatus.DELETED);
    assertThat(d.owner()).isNull();
    assertThat(d.token()).isNull();
  }

  @Test
  void aDeletedTaskWhoseOwnersLeaseEndedLessThanTheClockMarginAgoIsStillOnDeleting() {
    MemberRecord justExpired = new MemberRecord("m1", MemberMeta.of(1, 10), 7, NOW - 150);
    PoolState withMargin = new PoolState(NOW, Map.of("m1", justExpired), Map.of(), Map.of(), 200);
    DerivedStatus d = TaskStatuses.derive(tombstone("t"), OWNER, withMargin);
    assertThat(d.state()).as("another member could not claim it yet either").isEqualTo(TaskStatus.ON_DELETING);
    assertThat(d.owner()).as("not a live claim: no owner shown").isNull();
    MemberRecord longExpired = new MemberRecord("m1", MemberMeta.of(1, 10), 7, NOW - 200);
    assertThat(TaskStatuses.derive(tombstone("t"), OWNER,
        new PoolState(NOW, Map.of("m1", longExpired), Map.of(), Map.of(), 200)).state()).isEqualTo(TaskStatus.DELETED);
  }

  @Test
  void aTombstoneIsPurgeableOnceItsRetentionIsOverAndNobodyCanRunItAnyMore() {
    Duration retention = Duration.ofMillis(100); // tombstone(...) was deleted at 30
    PoolState alive = pool(Map.of(), Map.of(), member("m1", 7, true, 1, 10));
    PoolState gone = pool(Map.of(), Map.of(), member("m1", 7, false, 1, 10));
    assertThat(TaskStatuses.purgeable(tombstone("t"), OWNER, gone, retention)).isTrue();
    assertThat(TaskStatuses.purgeable(tombstone("t"), null, alive, retention)).as("no owner").isTrue();
    assertThat(TaskStatuses.purgeable(tombstone("t"), OWNER, alive, retention)).as("may still run").isFalse();
    assertThat(TaskStatuses.purgeable(tombstone("t"), OWNER, gone, Duration.ofMillis(NOW - 29))).as("kept").isFalse();
    assertThat(TaskStatuses.purgeable(live("t", 1), null, gone, Duration.ZERO)).as("live spec").isFalse();
    assertThat(TaskStatuses.retentionOver(tombstone("t"), 130, retention)).isTrue();
    assertThat(TaskStatuses.retentionOver(tombstone("t"), 129, retention)).isFalse();
  }

  @Test
  void liveClaimWithRunUnderItsTokenIsProcessing() {
    DerivedStatus d = TaskStatuses.derive(running("t", 42, null), OWNER, pool(Map.of(), Map.of(), member("m1", 7, true, 1, 10)));
    assertThat(d).isEqualTo(new DerivedStatus(TaskStatus.PROCESSING, "m1", 42L, null));
  }

  @Test
  void failingFaultUnderTheLiveRunIsFailed_aNonFailingOneIsProcessing() {
    PoolState p = pool(Map.of(), Map.of(), member("m1", 7, true, 1, 10));
    assertThat(TaskStatuses.derive(running("t", 42, new TaskFault(5, true, "boom", 1)), OWNER, p).state())
        .isEqualTo(TaskStatus.FAILED);
    assertThat(TaskStatuses.derive(running("t", 42, new TaskFault(1, false, "boom", 1)), OWNER, p).state())
        .isEqualTo(TaskStatus.PROCESSING);
  }

  @Test
  void runUnderAnOlderTokenOrDeadOwnerIsNotProcessing() {
    PoolState p = pool(Map.of("m1", List.of("t")), Map.of("t", 1), member("m1", 7, true, 1, 10));
    DerivedStatus d = TaskStatuses.derive(running("t", 41, null), OWNER, p);
    assertThat(d.state()).isEqualTo(TaskStatus.CREATED);
    assertThat(d.owner()).isEqualTo("m1"); // the claim is live: it is starting
    PoolState dead = pool(Map.of("m1", List.of("t")), Map.of("t", 1), member("m1", 7, false, 1, 10));
    assertThat(TaskStatuses.derive(running("t", 42, null), OWNER, dead).state()).isEqualTo(TaskStatus.CREATED);
  }

  @Test
  void inTheTableIsCreatedEvenWithoutRoom() {
    PoolState p = pool(Map.of("m9", List.of("t")), Map.of("t", 5));
    assertThat(TaskStatuses.derive(live("t", 5), null, p).state()).isEqualTo(TaskStatus.CREATED);
  }

  @Test
  void notInTheTableButALiveMemberHasRoomIsCreated() {
    PoolState p = pool(Map.of("m1", List.of("a", "b")), Map.of("a", 3, "b", 4, "t", 3),
        member("m1", 1, true, 1, 10));
    assertThat(TaskStatuses.derive(live("t", 3), null, p).state()).isEqualTo(TaskStatus.CREATED);
    PoolState unlimited = pool(Map.of(), Map.of(), member("m1", 1, true, 1, Integer.MAX_VALUE));
    assertThat(TaskStatuses.derive(live("t", 1_000_000), null, unlimited).state()).isEqualTo(TaskStatus.CREATED);
  }

  @Test
  void pendingWhenNoLiveMember() {
    DerivedStatus d = TaskStatuses.derive(live("t", 1), null, pool(Map.of(), Map.of(), member("m1", 1, false, 1, 10)));
    assertThat(d.state()).isEqualTo(TaskStatus.PENDING);
    assertThat(d.reason()).isEqualTo("no live member in pool");
  }

  @Test
  void pendingWhenOnlyZeroAffinityMembersLive() {
    DerivedStatus d = TaskStatuses.derive(live("t", 1), null, pool(Map.of(), Map.of(), member("m1", 1, true, 0, 10)));
    assertThat(d.reason()).isEqualTo("no live member with affinity > 0 in pool");
  }

  @Test
  void pendingWhenCostExceedsTheLargestFreeCapacity() {
    PoolState p = pool(Map.of("m1", List.of("a"), "m2", List.of("b", "gone")), Map.of("a", 8, "b", 1, "t", 5),
        member("m1", 1, true, 1, 10), member("m2", 2, true, 1, 4), member("m3", 3, false, 1, 100));
    DerivedStatus d = TaskStatuses.derive(live("t", 5), null, p);
    assertThat(d.state()).isEqualTo(TaskStatus.PENDING);
    assertThat(d.reason()).isEqualTo("cost 5 exceeds the largest free capacity 3 of a live member");
    assertThat(p.used("m2")).isEqualTo(1); // "gone" is no live task: costs nothing
  }

  @Test
  void overfullMemberHasNoNegativeFreeCapacity() {
    PoolState p = pool(Map.of("m1", List.of("a")), Map.of("a", 20), member("m1", 1, true, 1, 10));
    assertThat(p.free(p.members().get("m1"))).isZero();
    assertThat(TaskStatuses.derive(live("t", 1), null, p).reason())
        .isEqualTo("cost 1 exceeds the largest free capacity 0 of a live member");
  }

  @Test
  void aUnitListedUnderTwoMembersCountsForTheFirstInByteOrderOnly() {
    PoolState p = pool(Map.of("m2", List.of("a", "b"), "m1", List.of("a"), "m3", List.of()), Map.of("a", 5, "b", 1),
        member("m1", 1, true, 1, 10), member("m2", 1, true, 1, 10));
    assertThat(p.table()).containsEntry("m1", List.of("a")).containsEntry("m2", List.of("b"))
        .containsEntry("m3", List.of());
    assertThat(p.used("m1")).isEqualTo(5);
    assertThat(p.used("m2")).as("'a' is m1's").isEqualTo(1);
  }
}
