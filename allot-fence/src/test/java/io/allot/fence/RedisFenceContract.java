package io.allot.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** What {@link RedisFence} guarantees, on a real Redis: one subclass for a standalone server, one for a cluster. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RedisFenceContract {
  RedisClusterCommands<String, String> redis;
  RedisFence fence;
  /** A key prefix of this test's own, with a hash tag for the multi-key reads of the assertions. */
  String p;

  /** What {@link #connect} opened, closed last first after the class. */
  final java.util.Deque<AutoCloseable> opened = new java.util.ArrayDeque<>();

  /** Connects (once per class), adding what it opens to {@code opened} (push). */
  abstract RedisClusterCommands<String, String> connect(java.util.Deque<AutoCloseable> opened);

  @BeforeAll
  void open() {
    redis = connect(opened);
    fence = RedisFence.builder(redis).build();
  }

  @AfterAll
  void close() throws Exception {
    while (!opened.isEmpty()) {
      opened.pop().close();
    }
  }

  @BeforeEach
  void newPrefix() {
    p = "allot-fence-test:" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE) + ":";
  }

  @Test
  void theFirstWriterSetsTheTokenInForce() {
    String key = p + "site-42";
    assertThat(fence.inForce(key)).isEmpty();
    fence.set(key, "a", 7);
    assertThat(redis.get(key)).isEqualTo("a");
    assertThat(fence.inForce(key)).hasValue(7);
    assertThat(redis.get(fence.fenceKey(key))).isEqualTo("7");
    assertThat(redis.ttl(fence.fenceKey(key))).as("fence keys never expire").isEqualTo(-1L);
  }

  @Test
  void aStaleTokenIsRejectedAndNothingIsWritten() {
    String key = p + "site-42";
    fence.set(key, "new", 20);
    assertThatThrownBy(() -> fence.set(key, "late", 10))
        .isInstanceOfSatisfying(StaleTokenException.class, e -> {
          assertThat(e.resource()).isEqualTo(key);
          assertThat(e.offered()).isEqualTo(10);
          assertThat(e.inForce()).isEqualTo(20);
        });
    assertThat(redis.get(key)).isEqualTo("new");
    assertThat(fence.inForce(key)).hasValue(20);
  }

  @Test
  void theSameOwnerWritesAgainAndALargerTokenTakesOver() {
    String key = p + "rows";
    assertThat(fence.hset(key, "a", "1", 12)).isTrue();
    assertThat(fence.hset(key, "a", "2", 12)).isFalse(); // same owner, same field: written, not new
    assertThat(fence.hset(key, "b", "3", 13)).isTrue();
    assertThatThrownBy(() -> fence.hset(key, "c", "4", 12)).isInstanceOf(StaleTokenException.class);
    assertThat(redis.hgetall(key)).containsOnly(java.util.Map.entry("a", "2"), java.util.Map.entry("b", "3"));
    assertThat(fence.inForce(key)).hasValue(13);
  }

  @Test
  void anySingleKeyCommandCanBeFenced() {
    String key = p + "log";
    assertThat(fence.call(key, 5, "RPUSH", "x", "y")).isEqualTo(2L);
    assertThat(fence.call(key, 5, "LRANGE", "0", "-1")).isEqualTo(java.util.List.of("x", "y"));
    assertThat(fence.call(p + "missing", 5, "GET")).isNull();
    assertThat(fence.call(p + "s", 5, "SET", "v", "PX", "60000")).isEqualTo("OK");
    assertThat(redis.pttl(p + "s")).isPositive();
    assertThatThrownBy(() -> fence.call(key, 4, "DEL")).isInstanceOf(StaleTokenException.class);
    assertThat(redis.lrange(key, 0, -1)).containsExactly("x", "y");
  }

  @Test
  void aFailedCommandMovesNoFence() {
    String key = p + "list";
    fence.call(key, 5, "RPUSH", "x");
    assertThatThrownBy(() -> fence.call(key, 9, "HSET", "f", "v")).isInstanceOf(RedisCommandExecutionException.class)
        .hasMessageContaining("WRONGTYPE");
    assertThat(fence.inForce(key)).hasValue(5);
  }

  /** Tokens beyond 2^53 differ by one: a Lua number comparison would call them equal. */
  @Test
  void tokensCompareExactly() {
    String key = p + "big";
    long t = (1L << 53) + 1;
    fence.set(key, "new", t);
    assertThatThrownBy(() -> fence.set(key, "old", t - 1)).isInstanceOf(StaleTokenException.class);
    fence.set(key, "max", Long.MAX_VALUE);
    assertThatThrownBy(() -> fence.set(key, "old", Long.MAX_VALUE - 1))
        .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.inForce()).isEqualTo(Long.MAX_VALUE));
    fence.set(p + "short", "a", 99);
    assertThatThrownBy(() -> fence.set(p + "short", "b", 100 - 91)).isInstanceOf(StaleTokenException.class); // "9" > "99" as text
    fence.set(p + "short", "c", 100);
    assertThat(redis.get(p + "short")).isEqualTo("c");
  }

  @Test
  void theFenceKeySharesTheDataKeysSlot() {
    for (String key : new String[] {p + "plain", "{" + p + "tagged}:rows", p + "half{open"}) {
      assertThat(SlotHash.getSlot(fence.fenceKey(key))).as(key).isEqualTo(SlotHash.getSlot(key));
      fence.set(key, "v", 1); // a cluster refuses a script whose keys are in two slots
    }
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> fence.set("", "v", 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key");
    assertThatThrownBy(() -> fence.set(p + "k", "v", -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("token");
    assertThatThrownBy(() -> fence.call(p + "k", 1, " ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("command");
    assertThatThrownBy(() -> fence.set("a{}b", "v", 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a{}b'").hasMessageContaining("hash tag");
    assertThatThrownBy(() -> RedisFence.builder(redis).prefix("f{x}:")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prefix");
  }
}
