package io.allot.tasks.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.Lease;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.Tables;
import io.allot.store.memory.MemoryStore;
import io.allot.store.tasks.TaskFault;
import io.allot.store.tasks.TaskLimits;
import io.allot.store.tasks.TaskRun;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import io.allot.tasks.status.TaskStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link TaskService} on the memory store, with a hand-driven clock. */
class TaskServiceTest {
  static final String TABLE = "sys-matching-table";
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final Store store = new MemoryStore(nanos::get);
  private final TaskService api = TaskService.forPools(store, TABLE, List.of("p", "q"));

  @AfterEach
  void close() {
    store.close();
  }

  private static void refused(ErrorKind kind, String fragment, ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOfSatisfying(TaskServiceException.class, e -> {
      assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind);
      assertThat(e.getMessage()).contains(fragment);
    });
  }

  @Test
  void createIsIdempotentOnCanonicalArgsAndConflictsOnOthers() {
    TaskService.Written w = api.create("p", "t1", "{ \"b\": [1, {\"y\":2,\"x\":1}], \"a\": \"s\" }", 2);
    assertThat(w.created()).isTrue();
    assertThat(w.task().args()).isEqualTo("{\"a\":\"s\",\"b\":[1,{\"x\":1,\"y\":2}]}");
    assertThat(w.task().status()).isEqualTo(TaskStatus.PENDING);
    assertThat(w.task().reason()).isEqualTo("no live member in pool");
    assertThat(w.task().revision()).isEqualTo(1);

    TaskService.Written again = api.create("p", "t1", "{\"a\":\"s\",\"b\":[1,{\"x\":1,\"y\":2}]}", 2);
    assertThat(again.created()).isFalse();
    assertThat(again.task().revision()).isEqualTo(1);

    refused(ErrorKind.CONFLICT, "other args", () -> api.create("p", "t1", "{\"a\":\"other\"}", 2));
    refused(ErrorKind.CONFLICT, "other cost", () -> api.create("p", "t1", "{\"a\":\"s\",\"b\":[1,{\"x\":1,\"y\":2}]}", 3));
    assertThat(api.get("p", "t1").args()).isEqualTo(w.task().args());
  }

  @Test
  void badInputIsNamedAndChangesNothing() {
    api.create("p", "keep", "{\"v\":1}", 1);
    long version = store.taskSpecs("p").version();
    refused(ErrorKind.NOT_FOUND, "unknown pool 'nope'; known pools: p, q", () -> api.create("nope", "t", "{}", 1));
    refused(ErrorKind.BAD_INPUT, "name: task name 'bad name'", () -> api.create("p", "bad name", "{}", 1));
    refused(ErrorKind.BAD_INPUT, "name: task name must be non-empty", () -> api.create("p", "", "{}", 1));
    refused(ErrorKind.BAD_INPUT, "args: must be a JSON object but was an array", () -> api.create("p", "t", "[1]", 1));
    refused(ErrorKind.BAD_INPUT, "args: must be a JSON object but was a string", () -> api.create("p", "t", "\"x\"", 1));
    refused(ErrorKind.BAD_INPUT, "args: not valid JSON", () -> api.create("p", "t", "{\"a\":", 1));
    refused(ErrorKind.BAD_INPUT, "args: not valid JSON", () -> api.create("p", "t", "{\"a\":1,\"a\":2}", 1));
    refused(ErrorKind.BAD_INPUT, "args: not valid JSON", () -> api.create("p", "t", "{} {}", 1));
    refused(ErrorKind.BAD_INPUT, "args: must be a JSON object but was missing", () -> api.create("p", "t", null, 1));
    refused(ErrorKind.TOO_LARGE, "args: 65544 bytes", () -> api.create("p", "t", "{\"a\":\"" + "x".repeat(TaskLimits.MAX_ARGS_BYTES) + "\"}", 1));
    refused(ErrorKind.BAD_INPUT, "cost: task cost must be 1 to 1000000 but was 0", () -> api.create("p", "t", "{}", 0));
    refused(ErrorKind.BAD_INPUT, "cost:", () -> api.create("p", "t", "{}", TaskLimits.MAX_COST + 1));
    refused(ErrorKind.BAD_INPUT, "cost:", () -> api.update("p", "keep", "{}", -1));
    refused(ErrorKind.BAD_INPUT, "args:", () -> api.update("p", "keep", "[]", 1));
    refused(ErrorKind.NOT_FOUND, "no task 'missing' in pool 'p'", () -> api.update("p", "missing", "{}", 1));
    refused(ErrorKind.NOT_FOUND, "no task 'missing'", () -> api.delete("p", "missing"));
    refused(ErrorKind.NOT_FOUND, "no task 'missing'", () -> api.get("p", "missing"));
    refused(ErrorKind.BAD_INPUT, "status: status 'Running' is not one of Created, Processing", () -> api.list("p", "Running"));
    refused(ErrorKind.NOT_FOUND, "unknown pool", () -> api.members("nope"));
    assertThat(store.taskSpecs("p").version()).isEqualTo(version);
    assertThat(store.taskSpecs("nope").list()).isEmpty();
    assertThat(api.get("p", "keep").args()).isEqualTo("{\"v\":1}");
  }

  @Test
  void updateChangesArgsAndKeepsCostUnlessGiven() {
    api.create("p", "t", "{\"v\":1}", 3);
    TaskView u = api.update("p", "t", "{\"v\":2}", null);
    assertThat(u.args()).isEqualTo("{\"v\":2}");
    assertThat(u.cost()).isEqualTo(3);
    assertThat(u.revision()).isEqualTo(2);
    assertThat(api.update("p", "t", "{\"v\":2}", 4).cost()).isEqualTo(4);
    api.delete("p", "t");
    refused(ErrorKind.NOT_FOUND, "no task 't'", () -> api.update("p", "t", "{}", null));
  }

  @Test
  void statusesFollowMembershipOwnershipAndRuns() {
    api.create("p", "t", "{}", 2);
    long session = store.membership("p").register("10.0.0.1:5000", MemberMeta.of(1, 5).with("version", "1.2.3"),
        Duration.ofSeconds(10));
    assertThat(api.get("p", "t").status()).isEqualTo(TaskStatus.CREATED);

    long token = store.ownership("p").claim("t", "10.0.0.1:5000", session).orElseThrow();
    TaskView claimed = api.get("p", "t");
    assertThat(claimed.status()).isEqualTo(TaskStatus.CREATED);
    assertThat(claimed.owner()).isEqualTo("10.0.0.1:5000");
    assertThat(store.taskSpecs("p").started("t", new TaskRun("10.0.0.1:5000", token, 1, 0))).isTrue();
    TaskView running = api.get("p", "t");
    assertThat(running.status()).isEqualTo(TaskStatus.PROCESSING);
    assertThat(running.token()).isEqualTo(token);
    assertThat(api.list("p", "Processing")).extracting(TaskView::name).containsExactly("t");
    assertThat(api.list("p", "created")).isEmpty();

    store.taskSpecs("p").fault("t", token, new TaskFault(4, true, "handler crashed", 1));
    TaskView failed = api.get("p", "t");
    assertThat(failed.status()).isEqualTo(TaskStatus.FAILED);
    assertThat(failed.lastError()).isEqualTo("handler crashed");

    assertThat(api.delete("p", "t").status()).isEqualTo(TaskStatus.ON_DELETING);
    assertThat(api.list("p", "OnDeleting")).hasSize(1);
    assertThat(store.ownership("p").release("t", "10.0.0.1:5000", token)).isTrue();
    TaskView deleted = api.get("p", "t");
    assertThat(deleted.status()).isEqualTo(TaskStatus.DELETED);
    assertThat(deleted.owner()).isNull();
    assertThat(deleted.deletedMillis()).isPositive();
  }

  @Test
  void onDeletingEndsWhenTheOwnersLeaseRunsOut() {
    api.create("p", "t", "{}", 1);
    long session = store.membership("p").register("m", MemberMeta.DEFAULT, Duration.ofSeconds(2));
    long token = store.ownership("p").claim("t", "m", session).orElseThrow();
    store.taskSpecs("p").started("t", new TaskRun("m", token, 1, 0));
    assertThat(api.delete("p", "t").status()).isEqualTo(TaskStatus.ON_DELETING);
    nanos.addAndGet(Duration.ofSeconds(3).toNanos());
    assertThat(api.get("p", "t").status()).isEqualTo(TaskStatus.DELETED);
  }

  @Test
  void pendingNamesTheLargestFreeCapacityFromTheTable() {
    store.membership("p").register("m1", MemberMeta.of(1, 4), Duration.ofSeconds(10));
    api.create("p", "a", "{}", 3);
    api.create("p", "big", "{}", 2);
    Lease lease = store.leadership().tryAcquire(Tables.leaseName(TABLE, "p"), "d", Duration.ofSeconds(10)).orElseThrow();
    store.tables().publish(lease, TABLE, "p", Map.of("m1", "a"));
    TaskView big = api.get("p", "big");
    assertThat(big.status()).isEqualTo(TaskStatus.PENDING);
    assertThat(big.reason()).isEqualTo("cost 2 exceeds the largest free capacity 1 of a live member");
    assertThat(api.get("p", "a").status()).isEqualTo(TaskStatus.CREATED);
    assertThat(api.members("p")).containsExactly(new MemberView("m1", true,
        store.membership("p").members().get("m1").leaseUntilMillis(), 1, 4, 3, null));
    assertThat(api.list("p", "Pending")).extracting(TaskView::name).containsExactly("big");
  }

  @Test
  void poolsCountTasksAndLiveMembers() {
    api.create("p", "a", "{}", 1);
    api.create("p", "b", "{}", 1);
    api.delete("p", "b");
    store.membership("q").register("m", MemberMeta.DEFAULT, Duration.ofSeconds(10));
    assertThat(api.pools()).containsExactly(new PoolInfo("p", 1, 1, 0), new PoolInfo("q", 0, 0, 1));
    assertThat(TaskService.anyPool(store, TABLE).pools()).isEmpty();
    assertThat(TaskService.anyPool(store, TABLE).create("any-pool", "x", "{}", 1).created()).isTrue();
  }

  /**
   * Members without a record (original-style services) are judged by the distributor's pings: the views count and
   * list them by its verdicts, marked judgedBy ping; a member with a record keeps its lease's verdict.
   */
  @Test
  void pingJudgedMembersAreCountedAndListed() {
    store.membership("p").register("m1", MemberMeta.DEFAULT, Duration.ofSeconds(10));
    TaskService withPings = api.withPingVerdicts(pool -> pool.equals("p")
        ? Map.of("10.0.0.1:80", true, "10.0.0.2:80", false, "m1", false) : Map.of());
    assertThat(withPings.pools()).containsExactly(new PoolInfo("p", 0, 0, 2), new PoolInfo("q", 0, 0, 0));
    assertThat(api.pools()).containsExactly(new PoolInfo("p", 0, 0, 1), new PoolInfo("q", 0, 0, 0));
    assertThat(withPings.withUnitsList("l").withUnitsLists(Map.of("p", "l")).pools()).as("kept by the other withs")
        .containsExactly(new PoolInfo("p", 0, 0, 2), new PoolInfo("q", 0, 0, 0));
    List<MemberView> members = withPings.members("p");
    assertThat(members).extracting(MemberView::id).containsExactly("10.0.0.1:80", "10.0.0.2:80", "m1");
    assertThat(members.get(0)).isEqualTo(new MemberView("10.0.0.1:80", true, 0, 1, null, 0, null, MemberView.PING));
    assertThat(members.get(1).up()).isFalse();
    assertThat(members.get(2).judgedBy()).isEqualTo(MemberView.LEASE);
    assertThat(members.get(2).up()).isTrue();
    assertThat(TaskJson.member(members.get(0)).get("leaseExpiresAt").isNull()).isTrue();
    assertThat(TaskJson.member(members.get(0)).get("judgedBy").asText()).isEqualTo("ping");
    assertThat(TaskJson.member(members.get(2)).get("judgedBy").asText()).isEqualTo("lease");
  }

  /**
   * The rule of a client that talks to the store (the CLI): a pool is known when a distributor leads it into the
   * table now or it has held tasks; else it is refused, naming the pool and the table, and nothing is written.
   */
  @Test
  void aPoolNoDistributorServesAndThatNeverHeldTasksIsUnknownToTheStoresRule() {
    TaskService served = TaskService.servedPools(store, TABLE);
    refused(ErrorKind.NOT_FOUND, "pool: unknown pool 'ghostpool': no distributor serves it into table '" + TABLE + "'",
        () -> served.create("ghostpool", "t", "{}", 1));
    refused(ErrorKind.NOT_FOUND, "unknown pool 'ghostpool'", () -> served.list("ghostpool", null));
    assertThat(store.taskSpecs("ghostpool").version()).isZero();

    store.leadership().tryAcquire(Tables.leaseName(TABLE, "live"), "d", Duration.ofSeconds(10)).orElseThrow();
    assertThat(served.create("live", "t", "{}", 1).created()).isTrue();
    nanos.addAndGet(Duration.ofSeconds(11).toNanos()); // the distributor is gone: the pool's tasks stay reachable
    assertThat(served.get("live", "t").name()).isEqualTo("t");
    assertThat(served.delete("live", "t").status()).isEqualTo(TaskStatus.DELETED);
    refused(ErrorKind.NOT_FOUND, "into table 'other-table'",
        () -> TaskService.servedPools(store, "other-table").create("ghost2", "t", "{}", 1));
    assertThatThrownBy(() -> served.create("ghostpool", "t", "{}", 1))
        .isInstanceOfSatisfying(TaskServiceException.class, e -> assertThat(e.field()).isEqualTo("pool"));
  }

  /**
   * A pool fed by a units list loses all its units when it gets a task (a pool with tasks ignores the list): a
   * create there is refused (409) naming the pool and the list, nothing written; a pool that already has tasks is fed
   * by them, so it may get more; an empty list feeds nothing.
   */
  @Test
  void aCreateInAPoolFedByANonEmptyUnitsListIsAConflictNamingTheListAndWritesNothing() {
    TaskService server = TaskService.forPools(store, TABLE, List.of("p", "q")).withUnitsList("sys-channels");
    store.seedKeys().replaceList("sys-channels", List.of("u1", "u2"));
    refused(ErrorKind.CONFLICT, "pool: pool 'p' takes its units from the units list 'sys-channels' (2 units)",
        () -> server.create("p", "t", "{}", 1));
    assertThat(store.taskSpecs("p").version()).isZero();
    assertThat(store.taskSpecs("p").list()).isEmpty();
    assertThat(store.seedKeys().list("sys-channels")).containsExactly("u1", "u2");

    store.seedKeys().replaceList("sys-channels", List.of());
    assertThat(server.create("p", "t", "{}", 1).created()).isTrue();
    store.seedKeys().replaceList("sys-channels", List.of("u1"));
    assertThat(server.create("p", "t2", "{}", 1).created()).as("fed by its tasks already").isTrue();
    assertThatThrownBy(() -> TaskService.forPools(store, TABLE, List.of("p")).withUnitsList(" "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("units list");
  }

  /** Each pool's own units list (allot dev: two distributors on one table): the 409 names the list of that pool. */
  @Test
  void eachPoolsOwnUnitsListDecidesAndIsNamed() {
    TaskService dev = TaskService.forPools(store, TABLE, List.of("p", "q"))
        .withUnitsLists(Map.of("p", "p-units", "q", "q-units"));
    store.seedKeys().replaceList("p-units", List.of("u1"));
    store.seedKeys().replaceList("sys-channels", List.of("u1", "u2"));
    refused(ErrorKind.CONFLICT, "pool 'p' takes its units from the units list 'p-units' (1 units)",
        () -> dev.create("p", "t", "{}", 1));
    assertThat(dev.create("q", "t", "{}", 1).created()).as("q's own list is empty").isTrue();
    TaskService mixed = TaskService.forPools(store, TABLE, List.of("p", "q")).withUnitsList("sys-channels")
        .withUnitsLists(Map.of("q", "q-units"));
    refused(ErrorKind.CONFLICT, "units list 'sys-channels' (2 units)", () -> mixed.create("p", "t", "{}", 1));
    assertThatThrownBy(() -> dev.withUnitsLists(Map.of("p", " ")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("units list of pool 'p'");
  }

  @Test
  void recreateAfterDeleteIsANewIncarnation() {
    api.create("p", "t", "{}", 1);
    api.delete("p", "t");
    assertThat(api.delete("p", "t").status()).isEqualTo(TaskStatus.DELETED); // twice is harmless
    TaskService.Written w = api.create("p", "t", "{\"n\":2}", 1);
    assertThat(w.created()).isTrue();
    assertThat(w.task().revision()).isEqualTo(2);
    assertThat(w.task().deletedMillis()).isZero();
  }

  @Test
  void membersCarryTheirVersionZoneAndLabels() {
    MemberMeta meta = MemberMeta.of(1, 4).with(MemberMeta.VERSION, "1.4.0").with(MemberMeta.ZONE, "zone-a")
        .with("team", "search");
    store.membership("p").register("m1", meta, Duration.ofSeconds(10));
    store.membership("p").register("m2", MemberMeta.of(1, 4), Duration.ofSeconds(10));
    List<MemberView> members = api.members("p");
    assertThat(members.get(0).version()).isEqualTo("1.4.0");
    assertThat(members.get(0).zone()).isEqualTo("zone-a");
    assertThat(members.get(0).labels()).containsExactly(Map.entry("team", "search"));
    assertThat(members.get(1).zone()).isNull();
    assertThat(members.get(1).labels()).isEmpty();
    String json = TaskJson.member(members.get(0)).toString();
    assertThat(json).contains("\"zone\":\"zone-a\"", "\"labels\":{\"team\":\"search\"}");
    assertThat(TaskJson.member(members.get(1)).toString()).contains("\"zone\":null", "\"labels\":{}");
  }
}
