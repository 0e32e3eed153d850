package io.allot.store.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every store's {@link Events} must have. Extend it and provide {@link #store()} (and optionally
 * {@link #peer()}, a second client of the same backing store). Each test writes to pools with fresh random names;
 * the history is store-wide, so tests that read every pool read after a cursor taken at their start.
 */
public abstract class EventsContractTest {
  /** Generous enough for a loaded 2-core CI machine; conditions are polled, never slept on. */
  protected static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final EventRetention KEEP = EventRetention.DEFAULT;

  private String pool;

  /** The store under test. */
  protected abstract Store store();

  /** A second client of the same backing store; defaults to {@link #store()}. */
  protected Store peer() {
    return store();
  }

  @BeforeEach
  void newPool() {
    pool = "ev-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** The random pool of the running test. */
  protected String pool() {
    return pool;
  }

  private RecordedEvent append(String pool, EventKind kind, String subject) {
    return store().events().append(new NewEvent(pool, kind, "tester", subject, "detail of " + subject), KEEP);
  }

  private List<RecordedEvent> read(EventQuery q) {
    return peer().events().query(q).events();
  }

  @Test
  void appendedEventsAreReadOldestFirstWithGrowingIdsAndTheStoreTime() {
    long before = store().clock().timeMillis();
    RecordedEvent a = append(pool, EventKind.MEMBER_UP, "m1");
    RecordedEvent b = append(pool, EventKind.MEMBER_DOWN, "m1");
    long after = store().clock().timeMillis();
    assertThat(b.id()).isGreaterThan(a.id());
    assertThat(a.time().toEpochMilli()).isBetween(before, after);
    assertThat(a.cursor()).isEqualTo(Long.toString(a.id()));
    assertThat(read(EventQuery.all().inPool(pool))).containsExactly(a, b);
    assertThat(peer().events().lastId()).as("the newest kept").isGreaterThanOrEqualTo(b.id());
    assertThat(a).isEqualTo(new RecordedEvent(a.id(), a.time(), pool, EventKind.MEMBER_UP, "tester", "m1",
        "detail of m1"));
  }

  @Test
  void aQueryReadsAfterItsCursorExclusiveAndPagesByItsLimit() {
    List<RecordedEvent> all = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      all.add(append(pool, EventKind.TASK_STATUS, "t" + i));
    }
    EventQuery q = EventQuery.all().inPool(pool).limit(3);
    EventPage p1 = peer().events().query(q);
    assertThat(p1.events()).containsExactlyElementsOf(all.subList(0, 3));
    assertThat(p1.next()).isEqualTo(all.get(2).id());
    EventPage p2 = peer().events().query(q.after(p1.next()));
    assertThat(p2.events()).containsExactlyElementsOf(all.subList(3, 6));
    EventPage p3 = peer().events().query(q.after(p2.next()));
    assertThat(p3.events()).containsExactly(all.get(6));
    assertThat(p3.next()).as("not full: nothing more for now").isNull();
    assertThat(read(q.after(all.get(6).id()))).isEmpty();
    RecordedEvent later = append(pool, EventKind.TASK_STATUS, "t7");
    assertThat(read(q.after(all.get(6).id()))).as("a poller resumes after the last id").containsExactly(later);
  }

  @Test
  void queriesFilterByPoolAndKinds() {
    String other = pool + "-other";
    long start = read(EventQuery.all().inPool(pool)).size(); // 0
    RecordedEvent up = append(pool, EventKind.MEMBER_UP, "m1");
    RecordedEvent otherUp = append(other, EventKind.MEMBER_UP, "m1");
    RecordedEvent moved = append(pool, EventKind.TABLE_PUBLISHED, null);
    RecordedEvent storeWide = append(null, EventKind.JOB_RETRIED, "q/k");
    RecordedEvent fenced = append(pool, EventKind.SELF_FENCED, "m2");
    assertThat(start).isZero();
    assertThat(read(EventQuery.all().inPool(pool))).containsExactly(up, moved, fenced);
    assertThat(read(EventQuery.all().inPool(pool).ofKinds(EnumSet.of(EventKind.MEMBER_UP, EventKind.SELF_FENCED))))
        .containsExactly(up, fenced);
    assertThat(read(EventQuery.all().inPool(other))).containsExactly(otherUp);
    assertThat(read(EventQuery.all().after(up.id() - 1).limit(1000)))
        .as("every pool and the store-wide events").containsSubsequence(up, otherUp, moved, storeWide, fenced);
    assertThat(read(EventQuery.all().after(up.id() - 1).ofKinds(Set.of(EventKind.JOB_RETRIED)).limit(1000)))
        .contains(storeWide).doesNotContain(up, otherUp, moved, fenced);
    assertThat(storeWide.pool()).isNull();
  }

  @Test
  void aQueryWithAFewMatchesAmongManyOthersStillFillsItsPage() {
    List<RecordedEvent> wanted = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      RecordedEvent e = append(pool, i % 20 == 7 ? EventKind.TASK_FAILED : EventKind.TASK_STATUS, "t" + i);
      if (e.kind() == EventKind.TASK_FAILED) {
        wanted.add(e);
      }
    }
    assertThat(read(EventQuery.all().inPool(pool).ofKinds(Set.of(EventKind.TASK_FAILED)).limit(3)))
        .containsExactlyElementsOf(wanted);
  }

  @Test
  void textSurvivesAsWritten() {
    String odd = "a|b:c\n\"quoted\" \\ 5:x 0: ünïcødé 🙂 \t{allot:events}";
    RecordedEvent e = store().events().append(new NewEvent(pool, EventKind.API_WRITE, "api:[::1]:5|0", odd, odd),
        KEEP);
    RecordedEvent blank = store().events().append(new NewEvent(pool, EventKind.API_WRITE, "x", null, ""), KEEP);
    assertThat(read(EventQuery.all().inPool(pool))).containsExactly(e, blank);
    assertThat(e.detail()).isEqualTo(odd);
    assertThat(blank.subject()).isNull();
    assertThat(blank.detail()).isEmpty();
  }

  @Test
  void eachPoolKeepsItsNewestEventsUpToTheRetention() {
    String other = pool + "-other";
    EventRetention five = new EventRetention(5, Duration.ofDays(7));
    RecordedEvent keep = store().events().append(new NewEvent(other, EventKind.MEMBER_UP, "t", "x", ""), five);
    List<RecordedEvent> all = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      all.add(store().events().append(new NewEvent(pool, EventKind.MEMBER_UP, "t", "m" + i, ""), five));
    }
    assertThat(read(EventQuery.all().inPool(pool))).containsExactlyElementsOf(all.subList(7, 12));
    assertThat(read(EventQuery.all().inPool(other))).as("another pool is trimmed on its own").containsExactly(keep);
  }

  @Test
  void eventsOlderThanTheRetentionAreDeletedOnTheNextAppend() {
    RecordedEvent old = append(pool, EventKind.MEMBER_UP, "m1");
    await().atMost(PATIENCE).pollInterval(Duration.ofMillis(50))
        .until(() -> store().clock().timeMillis() > old.time().toEpochMilli() + 1100);
    RecordedEvent fresh = store().events().append(new NewEvent(pool + "-b", EventKind.MEMBER_UP, "t", "m", ""),
        new EventRetention(100, Duration.ofSeconds(1)));
    assertThat(read(EventQuery.all().inPool(pool))).as("any pool's old events").isEmpty();
    assertThat(read(EventQuery.all().inPool(pool + "-b"))).containsExactly(fresh);
  }

  @Test
  void concurrentAppendsGetDistinctIdsAndAreReadInIdOrder() throws Exception {
    ExecutorService pool8 = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        fs.add(pool8.submit(() -> {
          for (int i = 0; i < 15; i++) {
            (i % 2 == 0 ? store() : peer()).events().append(
                new NewEvent(pool, EventKind.CLAIM_REFUSED, "w" + thread, "u" + i, ""), KEEP);
          }
        }));
      }
      for (Future<?> f : fs) {
        f.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool8.shutdownNow();
    }
    List<RecordedEvent> got = read(EventQuery.all().inPool(pool).limit(1000));
    assertThat(got).hasSize(120);
    for (int i = 1; i < got.size(); i++) {
      assertThat(got.get(i).id()).isGreaterThan(got.get(i - 1).id());
    }
  }

  @Test
  void badQueriesAndEventsAreRefusedNamingTheField() {
    assertThatThrownBy(() -> EventQuery.all().limit(0)).hasMessageStartingWith("limit:");
    assertThatThrownBy(() -> EventQuery.all().limit(1001)).hasMessageStartingWith("limit:");
    assertThatThrownBy(() -> EventQuery.all().after(-1)).hasMessageStartingWith("after:");
    assertThatThrownBy(() -> EventQuery.all().inPool("")).hasMessageStartingWith("pool:");
    assertThatThrownBy(() -> new NewEvent(pool, EventKind.API_WRITE, " ", null, "")).hasMessageStartingWith("actor:");
    assertThatThrownBy(() -> EventKind.fromWire("member_up")).hasMessageStartingWith("kind:");
    assertThat(EventKind.fromWire("table-published")).isEqualTo(EventKind.TABLE_PUBLISHED);
    assertThat(new NewEvent(pool, EventKind.API_WRITE, "a", null, "x".repeat(5000)).detail())
        .hasSize(NewEvent.MAX_TEXT).endsWith("…");
  }
}
