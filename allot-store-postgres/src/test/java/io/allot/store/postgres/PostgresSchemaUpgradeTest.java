package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.UnitOwner;
import io.allot.store.tasks.TaskCreated;
import io.allot.store.tasks.TaskRun;
import io.allot.store.tasks.TaskSpecs;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A schema created by an earlier release migrates cleanly: its data stays readable, the new features work on it,
 * calls of the old form (a process of that release still running) still resolve, and it ends up with the same
 * tables, indexes, constraints and functions as a schema created by this release. Release 3 created its functions in
 * the migrations themselves (copies of its {@code schema-v1.sql} to {@code schema-v3.sql} under {@code legacy-v3/});
 * release 4 had today's {@code schema-v1.sql} to {@code schema-v4.sql} (applied migrations are never edited) and
 * its own {@code functions.sql} (a copy under {@code legacy-v4/}); release 7 (jobs, then named tasks, before the task
 * specs of version 8) and release 8 (before the tables of jobs were renamed in version 9) likewise, with their
 * {@code functions.sql} under {@code legacy-v7/} and {@code legacy-v8/}.
 */
class PostgresSchemaUpgradeTest {
  private static final Duration GUARD = Duration.ofSeconds(1);

  @ParameterizedTest(name = "schema version {0}")
  @ValueSource(ints = {3, 4})
  void aSchemaOfAnEarlierReleaseMigratesAndMatchesAFreshOne(int release) throws Exception {
    try (TestSchema old = TestSchema.random(); TestSchema fresh = TestSchema.random(); Connection c = TestSchema.raw()) {
      String s = createAsAnEarlierReleaseDid(c, old, release);
      // written by that release's statements
      long oldSession = release == 3
          ? longOf(c, "SELECT " + s + ".register(?, ?, ?, ?, ?, ?, ?)", "pool", "m1", 2, 5, 60_000L, "allot_x", "old")
          : longOf(c, "SELECT " + s + ".register(?, ?, ?, ?, ?, ?, ?, ?)", "pool", "m1", 2, 5, 60_000L, "allot_x",
              "old", "zone=z1");
      long oldToken = longOf(c, "SELECT " + s + ".claim(?, ?, ?, ?)", "pool", "u1", "m1", oldSession);
      longOf(c, "SELECT CASE WHEN " + s + ".add_to_list(?, ?) THEN 1 ELSE 0 END", "units", "a");
      MemberMeta m1Meta = release == 3 ? MemberMeta.of(2, 5) : MemberMeta.of(2, 5).with(MemberMeta.ZONE, "z1");

      try (PostgresStore store = PostgresStore.connect(PostgresStoreConfig.builder(old.uri()).lostStateGuard(GUARD)
          .build())) {
        assertThat(column(c, "SELECT version || ' ' || coalesce(functions_sha256, '-') FROM " + s
            + ".allot_schema_version ORDER BY version")).containsExactlyElementsOf(versionRows());

        MemberRecord m1 = store.membership("pool").members().get("m1");
        assertThat(m1.meta()).isEqualTo(m1Meta);
        assertThat(m1.session()).isEqualTo(oldSession);
        assertThat(m1.liveAt(store.clock().timeMillis())).isTrue();
        assertThat(store.ownership("pool").owners()).isEqualTo(Map.of("u1", new UnitOwner("u1", "m1", oldSession,
            oldToken)));
        assertThat(store.ownership("pool").validToken("u1", "m1", oldSession, oldToken)).isTrue();
        assertThat(store.seedKeys().list("units")).containsExactly("a");
        assertThat(store.seedKeys().list("pool")).containsExactly("m1");

        MemberMeta meta = MemberMeta.of(1, 3).with(MemberMeta.ZONE, "eu-1");
        long s2 = store.membership("pool").register("m2", meta, Duration.ofSeconds(60));
        assertThat(s2).isGreaterThan(oldToken);
        assertThat(store.membership("pool").members().get("m2").meta()).isEqualTo(meta);
        // the pool has no lost-state guard record (nothing says its state was kept): it waits the guard once
        assertThat(store.ownership("pool").claim("u2", "m2", s2)).as("waiting out the guard").isEmpty();
        assertThat(store.ownership("pool").claim("u1", "m1", oldSession)).as("the owner's repeated claim")
            .hasValue(oldToken);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
            .until(() -> store.ownership("pool").claim("u2", "m2", s2).isPresent());

        // a process of that release still running: its calls (old argument lists) resolve to the new functions,
        // and an update of the old form keeps the attributes it does not know about
        if (release == 3) {
          assertThat(longOf(c, "SELECT CASE WHEN " + s + ".update_member(?, ?, ?, ?, ?, ?, ?) THEN 1 ELSE 0 END",
              "pool", "m2", s2, 4, 4, "allot_x", "old")).isEqualTo(1);
          assertThat(store.membership("pool").members().get("m2").meta()).isEqualTo(meta.withAffinity(4)
              .withCapacity(4));
        }
        long s3 = release == 3
            ? longOf(c, "SELECT " + s + ".register(?, ?, ?, ?, ?, ?, ?)", "pool", "m3", 1, 1, 60_000L, "allot_x",
                "old")
            : longOf(c, "SELECT " + s + ".register(?, ?, ?, ?, ?, ?, ?, ?)", "pool", "m3", 1, 1, 60_000L, "allot_x",
                "old", "");
        assertThat(store.membership("pool").members().get("m3").meta()).isEqualTo(MemberMeta.of(1, 1));
        assertThat(s3).isGreaterThan(s2);
        long t3 = longOf(c, "SELECT " + s + ".claim(?, ?, ?, ?)", "pool", "u3", "m3", s3);
        assertThat(column(c, "SELECT array_length(" + s + ".claim_all(?, ?, ?, ?), 1)::text", "pool",
            new String[] {"u3", "u4"}, "m3", s3)).containsExactly("2");
        assertThat(longOf(c, "SELECT CASE WHEN " + s + ".release_unit(?, ?, ?, ?, ?, ?) THEN 1 ELSE 0 END", "pool",
            "u3", "m3", t3, "allot_x", "old")).isEqualTo(1);
        assertThat(longOf(c, "SELECT CASE WHEN " + s + ".deregister(?, ?, ?, ?, ?) THEN 1 ELSE 0 END", "pool",
            "m3", s3, "allot_x", "old")).isEqualTo(1);
        assertThat(store.ownership("pool").owners()).containsOnlyKeys("u1", "u2", "u4");
        assertThat(store.membership("pool").members()).containsOnlyKeys("m1", "m2");
        assertThat(column(c, "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            + "WHERE n.nspname = '" + old.name() + "' GROUP BY p.proname HAVING count(*) > 1")).as("no stale overloads")
            .isEmpty();
      }

      fresh.connect().close();
      List<String> upgraded = catalog(c, old.name());
      assertThat(upgraded).contains("members.attributes text NO ''::text -", "S.members PRIMARY KEY (pool, id)",
          "pools.guard_incarnation text YES - -", "S.holds PRIMARY KEY (pool, unit)",
          "CREATE INDEX list_items_by_value ON S.list_items USING btree (key, value)")
          .anyMatch(line -> line.startsWith("CREATE OR REPLACE FUNCTION S.claim(p_pool text"));
      assertThat(upgraded).as("upgraded schema vs fresh schema").isEqualTo(catalog(c, fresh.name()));
    }
  }

  /**
   * A schema of release 7 (jobs, then in a table named {@code tasks}, and no task specs) or 8 (with task specs) gains
   * what came after: its jobs stay readable in the table now named {@code jobs}, the task specs work on it, calls of
   * that release's form still resolve (but its job functions, which named the old tables: a job worker of release 7 or
   * 8 must be stopped before the upgrade), and it ends up as a schema created by this release.
   */
  @ParameterizedTest(name = "schema version {0}")
  @ValueSource(ints = {7, 8})
  void aSchemaWithJobsOfAnEarlierReleaseKeepsThemAndMatchesAFreshOne(int release) throws Exception {
    try (TestSchema old = TestSchema.random(); TestSchema fresh = TestSchema.random(); Connection c = TestSchema.raw()) {
      String s = createAsAnEarlierReleaseDid(c, old, release);
      long session = longOf(c, "SELECT " + s + ".register(?, ?, ?, ?, ?, ?, ?, ?)", "pool", "m1", 1, 2, 60_000L,
          "allot_x", "old", "zone=z1");
      try (Statement st = c.createStatement()) {
        st.execute("INSERT INTO " + s + ".tasks (queue, key, data, max_attempts, due_at, updated_at) "
            + "VALUES ('q', 'k', 'data of release " + release + "', 3, clock_timestamp(), clock_timestamp())");
      }
      assertThat(column(c, "SELECT coalesce(to_regclass(?)::text, '-')", old.name() + ".task_specs"))
          .containsExactly(release == 7 ? "-" : old.name() + ".task_specs");

      try (PostgresStore store = PostgresStore.connect(PostgresStoreConfig.builder(old.uri()).lostStateGuard(GUARD)
          .build())) {
        assertThat(column(c, "SELECT version || ' ' || coalesce(functions_sha256, '-') FROM " + s
            + ".allot_schema_version ORDER BY version")).containsExactlyElementsOf(versionRows());
        assertThat(store.membership("pool").members().get("m1").session()).isEqualTo(session);
        assertThat(store.jobQueue("q").get("k").orElseThrow().data()).isEqualTo("data of release " + release);
        assertThat(column(c, "SELECT coalesce(to_regclass(?)::text, '-') || ' ' || coalesce(to_regclass(?)::text, '-')",
            old.name() + ".tasks", old.name() + ".task_queues")).as("the old tables are gone").containsExactly("- -");
        assertThat(store.jobQueue("q").claim("w", 1, Duration.ofMinutes(1))).hasSize(1);

        TaskSpecs specs = store.taskSpecs("pool");
        assertThat(specs.version()).isZero();
        assertThat(specs.create("ticker", "{\"n\":1}", 2).outcome()).isEqualTo(TaskCreated.Outcome.CREATED);
        assertThat(specs.started("ticker", new TaskRun("m1", 5, 1, 0))).isTrue();
        assertThat(specs.delete("ticker").orElseThrow().deleted()).isTrue();
        assertThat(specs.purge("ticker", 1)).isTrue();
        assertThat(specs.list()).isEmpty();
        assertThat(specs.version()).isEqualTo(3); // create, delete, purge: the start report is not a change of the spec

        // a process of that release still running: its calls resolve to the functions of this release
        assertThat(longOf(c, "SELECT " + s + ".register(?, ?, ?, ?, ?, ?, ?, ?)", "pool", "m2", 1, 1, 60_000L,
            "allot_x", "old", "")).isGreaterThan(session);
        assertThat(column(c, "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            + "WHERE n.nspname = '" + old.name() + "' GROUP BY p.proname HAVING count(*) > 1")).as("no stale overloads")
            .isEmpty();
      }

      fresh.connect().close();
      List<String> upgraded = catalog(c, old.name());
      assertThat(upgraded).contains("S.task_specs PRIMARY KEY (pool, name)",
          "S.task_spec_versions PRIMARY KEY (pool)")
          .anyMatch(line -> line.startsWith("task_specs.args text NO"))
          .anyMatch(line -> line.startsWith("CREATE OR REPLACE FUNCTION S.create_task_spec(p_pool text"));
      assertThat(upgraded).as("upgraded schema vs fresh schema").isEqualTo(catalog(c, fresh.name()));
    }
  }

  /**
   * A schema of release 9 (live routing weights kept as the table {@code allot-route:<pool>}, published by the name
   * "weights") gains the route weights of version 11: the weights it held are copied (a field that is not a weight
   * skipped, as release 9 skipped it on reading), the revision goes on from the table's epoch, the old table is left
   * as it was, and the schema ends up as one created by this release.
   */
  @Test
  void theRouteWeightsOfRelease9AreCopiedIntoTheirOwnTables() throws Exception {
    try (TestSchema old = TestSchema.random(); TestSchema fresh = TestSchema.random(); Connection c = TestSchema.raw()) {
      String s = createAsAnEarlierReleaseDid(c, old, 9);
      for (String pool : List.of("svc", "other")) {
        String key = "allot-route:" + pool;
        longOf(c, "SELECT o_epoch FROM " + s + ".publish(?, ?, ?, ?, ?, ?, ?, ?, ?)", key + ":weights", "old",
            leaseToken(c, s, key + ":weights"), key, "weights",
            new String[] {"v1", "v2", "note", "huge"}, new String[] {"90", "10", "x", "1000001"}, "allot_x", "old");
      }
      longOf(c, "SELECT o_epoch FROM " + s + ".publish(?, ?, ?, ?, ?, ?, ?, ?, ?)", "allot-route:svc:weights", "old",
          leaseToken(c, s, "allot-route:svc:weights"), "allot-route:svc", "weights", new String[] {"v1"},
          new String[] {"100"}, "allot_x", "old");

      try (PostgresStore store = PostgresStore.connect(PostgresStoreConfig.builder(old.uri()).build())) {
        assertThat(store.routeWeights("svc").read()).isEqualTo(Map.of("v1", 100));
        assertThat(store.routeWeights("other").read()).isEqualTo(Map.of("v1", 90, "v2", 10));
        assertThat(store.routeWeights("none").read()).isEmpty();
        assertThat(store.routeWeights("svc").set(Map.of("v2", 1))).as("after the table's epoch 2").isEqualTo(3);
        assertThat(store.routeWeights("none").set(Map.of("v2", 1))).isEqualTo(1);
        assertThat(store.tables().read("allot-route:other")).as("left as it was").containsEntry("v1", "90");
      }

      fresh.connect().close();
      assertThat(catalog(c, old.name())).as("upgraded schema vs fresh schema").isEqualTo(catalog(c, fresh.name()));
    }
  }

  /** The token of a lease on {@code name} that release 9's statements took (held by "old" for a minute). */
  private static long leaseToken(Connection c, String s, String name) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("INSERT INTO " + s + ".leases (name, last_token, holder, expires_at) VALUES ('" + name
          + "', 7, 'old', clock_timestamp() + interval '1 minute') ON CONFLICT (name) DO NOTHING");
    }
    return 7;
  }

  /**
   * What the SchemaMigrator of release {@code release} (3, 4, 7, 8 or 9) did on an empty database: version table, the
   * migrations up to {@code release}, one row each, and (4, 7, 8) its functions with their hash, in {@code old}.
   *
   * @return the schema's name, quoted
   */
  private static String createAsAnEarlierReleaseDid(Connection c, TestSchema old, int release) throws SQLException {
    String schema = old.name();
    String s = old.quoted();
    try (Statement st = c.createStatement()) {
      st.execute("CREATE SCHEMA " + s);
      st.execute("CREATE TABLE IF NOT EXISTS " + s + ".allot_schema_version (version integer PRIMARY KEY, "
          + "description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())");
      for (int v = 1; v <= release; v++) {
        SchemaMigrator.Migration m = SchemaMigrator.MIGRATIONS.get(v - 1);
        st.execute(release == 3 ? legacy("legacy-v3/" + m.resource()).replace("${schema}", s)
            : SchemaMigrator.script(m.resource(), schema));
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + s
            + ".allot_schema_version (version, description) VALUES (?, ?)")) {
          ins.setInt(1, v);
          ins.setString(2, m.description());
          ins.executeUpdate();
        }
      }
      if (release >= 4) { // a copy of the functions.sql of that release
        st.execute(legacy("legacy-v" + release + "/functions.sql").replace("${schema}", s));
        st.execute("UPDATE " + s + ".allot_schema_version SET functions_sha256 = 'sha256 of release " + release
            + "' WHERE version = " + release);
      }
    }
    return s;
  }

  /** The version rows of a schema at the latest version: the functions' hash on the last one only. */
  private static List<String> versionRows() {
    List<String> versions = new ArrayList<>();
    for (int v = 1; v < SchemaMigrator.LATEST; v++) {
      versions.add(v + " -");
    }
    versions.add(SchemaMigrator.LATEST + " " + SchemaMigrator.FUNCTIONS_SHA256);
    return versions;
  }

  private static String legacy(String file) {
    try (InputStream in = PostgresSchemaUpgradeTest.class.getResourceAsStream(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Everything a schema holds but its data: columns, constraints, indexes, functions (with their full definitions)
   * and the version rows, with the schema's name replaced by {@code S}.
   */
  private static List<String> catalog(Connection c, String schema) throws SQLException {
    List<String> out = new ArrayList<>();
    out.addAll(column(c, "SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' '"
        + " || coalesce(column_default, '-') || ' ' || coalesce(collation_name, '-') FROM information_schema.columns"
        + " WHERE table_schema = '" + schema + "' ORDER BY table_name, ordinal_position"));
    out.addAll(column(c, "SELECT r.conrelid::regclass::text || ' ' || pg_get_constraintdef(r.oid) "
        + "FROM pg_constraint r JOIN pg_namespace n ON n.oid = r.connamespace WHERE n.nspname = '" + schema
        + "' ORDER BY 1"));
    out.addAll(column(c, "SELECT indexdef FROM pg_indexes WHERE schemaname = '" + schema + "' ORDER BY indexname"));
    out.addAll(column(c, "SELECT pg_get_functiondef(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = "
        + "p.pronamespace WHERE n.nspname = '" + schema + "' ORDER BY p.proname, pg_get_function_arguments(p.oid)"));
    out.addAll(column(c, "SELECT version || ' ' || description || ' ' || coalesce(functions_sha256, '-') FROM "
        + SchemaMigrator.quote(schema) + ".allot_schema_version ORDER BY version"));
    out.replaceAll(line -> line.replace(schema, "S"));
    return out;
  }

  private static List<String> column(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(c, ps, args);
      try (ResultSet rs = ps.executeQuery()) {
        List<String> out = new ArrayList<>();
        while (rs.next()) {
          out.add(rs.getString(1));
        }
        return out;
      }
    }
  }

  private static void bind(Connection c, PreparedStatement ps, Object[] args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      ps.setObject(i + 1, args[i] instanceof String[] a ? c.createArrayOf("text", a) : args[i]);
    }
  }

  private static long longOf(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(c, ps, args);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
