package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.tasks.TaskCreated;
import io.allot.store.tasks.TaskFault;
import io.allot.store.tasks.TaskRun;
import io.allot.store.tasks.TaskSpecs;
import io.allot.store.tasks.TaskSpecsContractTest;
import io.allot.testkit.TestServers;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The task-specs contract on the standalone Redis of {@link TestServers#redisUri()}: two stores as two processes
 * would have, used in turn, each test's keys deleted after it. Plus what is particular to the Redis layout: one slot
 * per pool whatever its name, names that never share keys, and tokens beyond a Lua double's precision. (The
 * random comparison with the memory reference is in the contract.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisTaskSpecsTest extends TaskSpecsContractTest {
  /** Two stores and a raw connection on the Redis under test, closed after the class's tests. */
  @AutoClose
  final RedisClients clients = connect();
  // JUnit runs a class's lifecycle methods and tests on one thread
  private final Set<String> pools = new HashSet<>();

  /** The clients of the server (or cluster) under test; called once, as the instance is made. */
  RedisClients connect() {
    return RedisClients.connect(TestServers.redisUri());
  }

  @AfterEach
  void deleteThePools() {
    for (String p : pools) {
      for (String k : SpecKeys.names(p)) { // one by one: the keys of different pools are in different slots
        clients.raw.del(k);
      }
    }
    pools.clear();
  }

  @Override
  protected TaskSpecs specs(String pool) {
    pools.add(pool);
    return clients.next().taskSpecs(pool);
  }

  @Override
  protected Store store() {
    return clients.store;
  }

  private static String randomName() {
    return "p-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void everyPoolHasItsSpecKeysInOneSlotAndNamesNeverShareKeys() {
    String id = randomName();
    List<String> names = List.of(id, "{" + id + "}", id + ":a:b", "x{}" + id, id + "}b", "p{" + id, "{t}" + id,
        "}{" + id + "}", id + ":version", id + ":specs");
    Set<String> all = new HashSet<>();
    for (String name : names) {
      String[] ks = SpecKeys.names(name);
      int slot = SlotHash.getSlot(ks[0]);
      for (String k : ks) {
        assertThat(SlotHash.getSlot(k)).as(k).isEqualTo(slot);
        assertThat(all.add(k)).as("key %s used by two pools", k).isTrue();
      }
      for (String other : List.of(RedisKeys.members(name), RedisKeys.ownership(name), RedisKeys.counter(name))) {
        assertThat(all).as("spec keys of %s vs its pool's own keys", name).doesNotContain(other);
      }
      TaskSpecs s = specs(name);
      assertThat(s.create("a", "{\"pool\":\"" + name + "\"}", 1).outcome()).isEqualTo(TaskCreated.Outcome.CREATED);
      assertThat(s.started("a", new TaskRun("m|1", 1, 1, 0))).isTrue();
      assertThat(s.fault("a", 1, new TaskFault(1, false, "e|r|r", 2))).isTrue();
      assertThat(clients.raw.exists(ks)).as(name).isEqualTo(5);
    }
    for (String name : names) {
      assertThat(clients.store.taskSpecs(name).get("a").orElseThrow().args()).isEqualTo("{\"pool\":\"" + name + "\"}");
    }
    assertThat(SpecKeys.names(id)[0]).isEqualTo("{allot:specs:" + id + "}:specs");
    assertThat(all).as("apart from task queues of the same names")
        .doesNotContainAnyElementsOf(names.stream().flatMap(n -> List.of(RedisJobQueueTest.keys(n)).stream())
            .toList());
  }

  @Test
  void tokensAreComparedExactlyBeyondTheDoublesPrecision() {
    TaskSpecs s = specs(randomName());
    s.create("a", "{}", 1);
    long big = (1L << 53) + 2;
    assertThat(s.started("a", new TaskRun("m1", big, 1, 0))).isTrue();
    assertThat(s.started("a", new TaskRun("m0", big - 1, 1, 0))).as("one below, lost as a double").isFalse();
    assertThat(s.fault("a", big + 1, new TaskFault(1, true, "x", 1))).isFalse();
    assertThat(s.fault("a", big, new TaskFault(1, true, "x", 1))).isTrue();
    assertThat(s.started("a", new TaskRun("m2", Long.MAX_VALUE, 1, 0))).isTrue();
    assertThat(s.get("a").orElseThrow().run().token()).isEqualTo(Long.MAX_VALUE);
    assertThat(s.get("a").orElseThrow().fault()).isNull();
    assertThat(s.started("a", new TaskRun("m3", -1, 1, 0))).isFalse();
    TaskSpecs t = specs(randomName());
    t.create("b", "{}", 1);
    assertThat(t.started("b", new TaskRun("m1", -10, 1, 0))).isTrue();
    assertThat(t.started("b", new TaskRun("m1", -11, 1, 0))).isFalse();
    assertThat(t.started("b", new TaskRun("m1", -9, 1, 0))).isTrue();
    assertThat(t.started("b", new TaskRun("m1", 0, 1, 0))).isTrue();
  }
}
