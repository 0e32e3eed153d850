package io.allot.server.distributor;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.Safety;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A registered member is judged by its lease: down from its lease end plus the clock margin, not before. */
class LeaseJudgeTest {
  final LeaseJudge judge = new LeaseJudge(Duration.ofMillis(200), Duration.ofSeconds(30));

  static MemberRecord record(String id, long leaseUntil) {
    return new MemberRecord(id, MemberMeta.DEFAULT, 1, leaseUntil);
  }

  @Test
  void liveUntilTheLeaseEndPlusTheMarginThenDown() {
    MemberRecord r = record("a:1", 10_000);
    assertThat(judge.live(r, 10_000)).isTrue(); // the lease just ended: a claim cannot take its units yet
    assertThat(judge.live(r, 10_199)).isTrue();
    assertThat(judge.live(r, 10_200)).isFalse(); // from here a claim can succeed
    LeaseJudge.Verdict v = judge.judge(List.of(r, record("b:1", 20_000)), 10_100);
    assertThat(v.live()).containsExactlyInAnyOrder("a:1", "b:1");
    assertThat(v.millisToNextChange()).isEqualTo(100);
    v = judge.judge(List.of(r, record("b:1", 20_000)), 10_200);
    assertThat(v.live()).containsExactly("b:1");
    assertThat(v.down()).containsExactly("a:1");
    assertThat(v.stale()).isEmpty();
    assertThat(v.millisToNextChange()).isEqualTo(10_000);
  }

  @Test
  void aRecordExpiredForTheCleanupAgeIsStale() {
    MemberRecord r = record("a:1", 10_000);
    assertThat(judge.judge(List.of(r), 39_999).stale()).isEmpty();
    assertThat(judge.judge(List.of(r), 40_000).stale()).containsExactly(r);
    assertThat(judge.judge(List.of(), 40_000).millisToNextChange()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theCleanupAgeIsTenGuardsAtLeastThirtySeconds() {
    assertThat(LeaseJudge.cleanupAge(Safety.defaults(false))).isEqualTo(Duration.ofSeconds(30));
    assertThat(LeaseJudge.cleanupAge(new Safety(Duration.ofSeconds(5), Duration.ZERO, false, List.of())))
        .isEqualTo(Duration.ofSeconds(50));
  }
}
