package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.TestServers;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code allot units add|remove|list} on every store: memory (shared by the in-process runs), Redis standalone and
 * Cluster, PostgreSQL (a schema of its own); every run under a key and pool of its own.
 */
class UnitsCommandTest {
  private final String suffix = UUID.randomUUID().toString().substring(0, 8);
  private final String key = "units-" + suffix;
  private final String pool = "pool-" + suffix;
  private PostgresSchema schema;

  static Stream<String> stores() {
    return Stream.of("memory", "redis", "redis-cluster", "postgresql");
  }

  private String uri(String kind) {
    return switch (kind) {
      case "memory" -> "shared-memory:" + suffix;
      case "redis" -> TestServers.redisUri();
      case "redis-cluster" -> TestServers.redisClusterUri();
      default -> (schema = PostgresSchema.create("units_cli")).uri();
    };
  }

  @AfterEach
  void dropSchema() {
    if (schema != null) {
      schema.close();
    }
  }

  private static CliRun unitsOf(String uri, String pool, String key, String... args) {
    String[] all = Stream.concat(Stream.of("units", args[0], "-store", uri, "--pool", pool,
        "-workunits-namespace", key), Stream.of(args).skip(1)).toArray(String[]::new);
    return CliRun.of(all);
  }

  private CliRun units(String uri, String... args) {
    return unitsOf(uri, pool, key, args);
  }

  @ParameterizedTest
  @MethodSource("stores")
  void addRemoveAndListOnEveryStore(String kind) {
    String uri = uri(kind);
    CliRun r = units(uri, "add", "a", "b", "c");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("allot: units list '" + key + "': added 3 unit(s): a, b, c");
    r = units(uri, "add", "d", "a");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("added 1 unit(s): d; already listed: a");
    r = units(uri, "list");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines()).containsExactly("d", "a", "b", "c");
    assertThat(r.err()).contains("4 unit(s)");
    r = units(uri, "remove", "b", "x");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("removed 1 unit(s): b; not listed: x");
    try (Store s = Stores.open(uri)) {
      assertThat(s.seedKeys().list(key)).containsExactly("d", "a", "c");
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void badInputIsNamedExit2AndWritesNothing(String kind) {
    String uri = uri(kind);
    assertThat(units(uri, "add", "keep").code()).isZero();
    String[][] cases = {
      {"add", "x", ""}, {"unit '': empty name"},
      {"add", "x", "y".repeat(201)}, {"201 characters; at most 200"},
      {"add", "x", "y", "x"}, {"unit 'x': named twice"},
      {"add", "x", "a,b"}, {"unit 'a,b': contains ','"},
      {"add", "x", "a\u0000b"}, {"contains a control character"},
      {"remove", "keep", "keep"}, {"unit 'keep': named twice"},
      {"add"}, {"UNIT"},
    };
    for (int i = 0; i < cases.length; i += 2) {
      CliRun r = units(uri, cases[i]);
      String what = String.join(" ", cases[i]);
      assertThat(r.code()).as(what + ": " + r.err()).isEqualTo(2);
      assertThat(r.err()).as(what).contains(cases[i + 1][0]);
      assertThat(r.err().lines().filter(l -> l.startsWith("allot: ")).count()).as(what).isLessThanOrEqualTo(1);
    }
    assertThat(unitsOf(uri, pool, " ", "list").code()).isEqualTo(2);
    try (Store s = Stores.open(uri)) {
      assertThat(s.seedKeys().list(key)).containsExactly("keep");
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void addRefusesAPoolWhoseUnitsAreItsTasks(String kind) {
    String uri = uri(kind);
    try (Store s = Stores.open(uri)) {
      s.taskSpecs(pool).create("crawl-1", "{}", 1);
    }
    CliRun r = units(uri, "add", "a");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("pool '" + pool + "' takes its units from its 1 long-running task(s)")
        .contains("nothing written");
    r = units(uri, "list");
    assertThat(r.code()).isZero();
    assertThat(r.err()).contains("takes its units from its 1 long-running task(s)");
    // another pool of the same list takes units
    assertThat(unitsOf(uri, pool + "-other", key, "add", "a").code()).isZero();
    try (Store s = Stores.open(uri)) {
      assertThat(s.seedKeys().list(key)).containsExactly("a");
    }
  }

  @Test
  void theInProcessMemoryStoreAndAParentAloneAreRefused() {
    CliRun r = CliRun.of("units", "add", "a", "-store", "memory:", "--pool", pool);
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("-store memory: lives in one process only");
    r = CliRun.of("units");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("allot: units: name a subcommand: add, remove, list");
  }
}
