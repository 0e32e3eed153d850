package io.allot.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.testkit.TestServers;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Lua of the Redis store as files: every file under {@code lua/} is named by the Java code exactly once (no
 * orphan script, no missing file), the Java code holds every script once (the indexes {@link Scripts},
 * {@link JobScripts}, {@link SpecScripts} list theirs), each compiles on the real Redis under the SHA the store runs
 * it by, no Lua is left in Java strings, and the shared prelude's rules (the token rule, the counter, the clock,
 * number formatting, chunks, type errors) do what {@code prelude.lua} says.
 */
class RedisScriptsTest {
  private static final Path MAIN = Path.of("src/main/java/io/allot/store/redis");
  private static final Path LUA = Path.of("src/main/resources/io/allot/store/redis/lua");
  /** A string literal naming a Lua file, as the Java code names one. */
  private static final Pattern LUA_FILE = Pattern.compile("\"([\\w/]+\\.lua)\"");

  private static RawRedis rawRedis;
  private static RedisClusterCommands<String, String> raw;
  private static final String PREFIX = "{lua-" + UUID.randomUUID() + "}:";

  @BeforeAll
  static void connect() {
    rawRedis = RawRedis.connect(TestServers.redisUri());
    raw = rawRedis.commands();
  }

  @AfterAll
  static void close() {
    rawRedis.deleteKeysContaining(PREFIX);
    rawRedis.close();
  }

  /** Every script the Java code holds: the static {@link Script} fields of this package's classes. */
  private static List<Script> all() throws IOException, ReflectiveOperationException {
    List<Script> all = new ArrayList<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      for (Path f : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        String name = f.getFileName().toString().replace(".java", "");
        all.addAll(scriptsOf(Class.forName(Script.class.getPackageName() + "." + name)));
      }
    }
    return all;
  }

  /** The static {@link Script} fields of {@code c}. */
  private static List<Script> scriptsOf(Class<?> c) throws ReflectiveOperationException {
    List<Script> out = new ArrayList<>();
    for (Field field : c.getDeclaredFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == Script.class) {
        field.setAccessible(true);
        out.add((Script) field.get(null));
      }
    }
    return out;
  }

  /** The Lua files, as paths relative to {@code lua/} with '/'. */
  private static Set<String> luaFiles() throws IOException {
    try (Stream<Path> files = Files.walk(LUA)) {
      return files.filter(f -> f.toString().endsWith(".lua"))
          .map(f -> LUA.relativize(f).toString().replace('\\', '/')).collect(Collectors.toCollection(TreeSet::new));
    }
  }

  @Test
  void everyLuaFileIsNamedByTheJavaCodeExactlyOnce() throws IOException {
    Map<String, Integer> named = new TreeMap<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        Matcher m = LUA_FILE.matcher(Files.readString(f));
        while (m.find()) {
          named.merge(m.group(1), 1, Integer::sum);
        }
      }
    }
    Set<String> files = luaFiles();
    assertThat(files).as("Lua files under %s", LUA).hasSizeGreaterThan(30).contains(Script.SHARED_PRELUDE);
    assertThat(files.stream().filter(f -> !named.containsKey(f))).as("Lua files the Java code never names").isEmpty();
    assertThat(named.keySet().stream().filter(f -> !files.contains(f))).as("Lua files named but missing").isEmpty();
    assertThat(named.entrySet().stream().filter(e -> e.getValue() != 1)).as("Lua files named more than once")
        .isEmpty();
  }

  @Test
  void theJavaCodeHoldsEveryScriptOnceAfterItsPreludes() throws Exception {
    List<String> names = all().stream().map(Script::name).toList();
    assertThat(names).doesNotHaveDuplicates();
    Set<String> scripts = luaFiles().stream().filter(f -> !f.endsWith("prelude.lua"))
        .map(f -> f.substring(0, f.length() - ".lua".length())).collect(Collectors.toCollection(TreeSet::new));
    assertThat(new TreeSet<>(names)).isEqualTo(scripts);
    assertThat(Scripts.ALL).as("Scripts.ALL (preloaded)").containsExactlyInAnyOrderElementsOf(scriptsOf(Scripts.class));
    assertThat(JobScripts.ALL).containsExactlyInAnyOrderElementsOf(scriptsOf(JobScripts.class));
    assertThat(SpecScripts.ALL).containsExactlyInAnyOrderElementsOf(scriptsOf(SpecScripts.class));
    String shared = Script.read(Script.SHARED_PRELUDE);
    for (Script s : all()) {
      assertThat(s.text()).as(s.name()).startsWith(shared).endsWith(Script.read(s.name() + ".lua"));
      assertThat(s.sha()).as(s.name()).isEqualTo(Script.sha1(s.text()));
    }
  }

  @Test
  void everyScriptCompilesOnRedisUnderItsSha() throws Exception {
    for (Script s : all()) {
      assertThat(raw.scriptLoad(s.text())).as("SCRIPT LOAD of %s", s.name()).isEqualTo(s.sha());
    }
  }

  @Test
  void noLuaIsLeftInJavaStrings() throws IOException {
    try (Stream<Path> files = Files.walk(MAIN)) {
      for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        assertThat(Files.readString(f)).as("%s", f)
            .doesNotContain("redis.call('", "redis.pcall('", "redis.error_reply(", "local function ");
      }
    }
  }

  /** Runs {@code body} after the shared prelude. */
  private static <T> T prelude(ScriptOutputType type, String body, String[] keys, String... args) {
    return raw.eval(Script.read(Script.SHARED_PRELUDE) + body, type, keys, args);
  }

  private static long timeMicros() {
    List<String> t = raw.time();
    return Long.parseLong(t.get(0)) * 1_000_000L + Long.parseLong(t.get(1));
  }

  @Test
  void theTokenRuleIsMaxOfPreviousPlusOneAndTheFloor() {
    List<String> r = prelude(ScriptOutputType.MULTI, """
        return {fmt(next_token(nil, 10)), fmt(next_token(8, 10)), fmt(next_token(9, 10)), fmt(next_token(10, 10)),
                fmt(next_token(2 ^ 52, 10))}
        """, new String[0]);
    assertThat(r).containsExactly("10", "10", "10", "11", "4503599627370497");
  }

  @Test
  void theClockIsRedisTimeInMicrosecondsAndMillisecondsWrittenWithoutExponent() {
    long before = timeMicros();
    List<String> r = prelude(ScriptOutputType.MULTI, "return {fmt(now_us()), fmt(now_ms()), fmt(2 ^ 53)}",
        new String[0]);
    long after = timeMicros();
    assertThat(Long.parseLong(r.get(0))).isBetween(before, after);
    assertThat(Long.parseLong(r.get(1))).isBetween(before / 1000, after / 1000);
    assertThat(r.get(2)).isEqualTo("9007199254740992");
  }

  @Test
  void aCounterIssuesTokensStrictlyAboveTheStoreTimeAndExactlyAboveTheLastOne() {
    String key = PREFIX + "counter";
    String body = "return next_counter(KEYS[1])";
    long before = timeMicros();
    long fresh = Long.parseLong(prelude(ScriptOutputType.VALUE, body, new String[] {key}));
    long after = timeMicros();
    assertThat(fresh).as("a missing counter: the store time + 1").isBetween(before + 1, after + 1);
    assertThat(Long.parseLong(prelude(ScriptOutputType.VALUE, body, new String[] {key})))
        .as("the next one").isGreaterThan(fresh);
    for (String lost : List.of("7", "not a number", "")) {
      raw.set(key, lost);
      long t = timeMicros();
      assertThat(Long.parseLong(prelude(ScriptOutputType.VALUE, body, new String[] {key})))
          .as("after the counter was '%s'", lost).isGreaterThan(t);
    }
    String ahead = Long.toString(timeMicros() + 1_000_000_000L);
    raw.set(key, ahead);
    assertThat(Long.parseLong(prelude(ScriptOutputType.VALUE, body, new String[] {key})))
        .isEqualTo(Long.parseLong(ahead) + 1);
    raw.set(key, "9007199254740993"); // 2^53 + 1: not a Lua number, but INCR counts exactly
    assertThat((String) prelude(ScriptOutputType.VALUE, body, new String[] {key})).isEqualTo("9007199254740994");
    assertThat(raw.get(key)).isEqualTo("9007199254740994");
  }

  @Test
  void chunkedSendsAnyNumberOfArgumentsInOrder() {
    String key = PREFIX + "list";
    List<String> args = new ArrayList<>(List.of("unused"));
    for (int i = 0; i < 2501; i++) {
      args.add("v" + i);
    }
    prelude(ScriptOutputType.STATUS, "chunked('RPUSH', KEYS[1], ARGV, 2) return 'OK'", new String[] {key},
        args.toArray(new String[0]));
    assertThat(raw.lrange(key, 0, -1)).isEqualTo(args.subList(1, args.size()));
    List<String> read = prelude(ScriptOutputType.MULTI, "return chunked('LRANGE', KEYS[1], {0, 1})",
        new String[] {key});
    assertThat(read).containsExactly("v0", "v1");
  }

  @Test
  void wrongTypeNamesTheKeyItsTypeAndTheTypeWanted() {
    String key = PREFIX + "string";
    String body = "local e = wrong_type(KEYS[1], 'hash') if e then return e end return 'OK'";
    assertThat((String) prelude(ScriptOutputType.STATUS, body, new String[] {key})).isEqualTo("OK");
    raw.set(key, "x");
    assertThatThrownBy(() -> prelude(ScriptOutputType.STATUS, body, new String[] {key}))
        .isInstanceOf(RedisCommandExecutionException.class)
        .hasMessageContaining("WRONGTYPE " + key + " holds a string, not a hash");
  }
}
