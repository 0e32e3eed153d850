package io.allot.store.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and migrates allot's schema. The applied versions are rows of {@code <schema>.allot_schema_version}.
 *
 * <p>Two kinds of scripts: the numbered migrations ({@code schema-v<n>.sql}) hold only tables, columns and
 * indexes, each applied once, in order; {@code functions.sql} holds every function, written to be applied again
 * (CREATE OR REPLACE), and is applied after the migrations whenever its SHA-256 differs from the one recorded on
 * the latest version's row ({@code functions_sha256}, from version 4 on). Only version numbers are recorded for the
 * migrations, never their content: an applied migration file is never read again, so editing one changes only
 * schemas created afterwards (which is how versions 1 to 3 lost the functions they used to create).
 *
 * <p>A connect first reads the version and the hash without locking anything (so a running system needs no DDL
 * privilege); if either is behind, the work runs in one transaction holding {@code
 * pg_advisory_xact_lock(hashtext('allot-schema'), hashtext(<schema>))} and re-reads both under the lock, so
 * processes starting at once migrate exactly once and the others wait, then find the schema current. A schema
 * newer than this code is refused.
 *
 * <p>Two releases with the same latest version but different {@code functions.sql} would each re-apply their own
 * at every connect: a change to the functions that older code must not undo comes with a new version (an empty
 * migration will do), which makes older code refuse the schema.
 */
final class SchemaMigrator {
  private static final Logger log = LoggerFactory.getLogger(SchemaMigrator.class);

  record Migration(int version, String description, String resource) {}

  static final List<Migration> MIGRATIONS = List.of(
      new Migration(1, "lists, hashes, leases, fenced publication, membership, ownership", "schema-v1.sql"),
      new Migration(2, "batched claims", "schema-v2.sql"),
      new Migration(3, "claims wait for an owner's renewal in flight", "schema-v3.sql"),
      new Migration(4, "member attributes; functions re-applied by content hash", "schema-v4.sql"),
      new Migration(5, "lost-state guard, clock margin, holds", "schema-v5.sql"),
      new Migration(6, "publication marks: incremental table publication", "schema-v6.sql"),
      new Migration(7, "finite queued work (jobs): tasks, task_queues", "schema-v7.sql"),
      new Migration(8, "long-running task specs: task_specs, task_spec_versions", "schema-v8.sql"),
      new Migration(9, "jobs: the finite tables renamed (tasks -> jobs, task_queues -> job_queues)", "schema-v9.sql"),
      new Migration(10, "jobs: the rate limit's bucket time read under its row lock (functions only)", "schema-v10.sql"),
      new Migration(11, "live routing weights: route_weights, route_weight_revisions", "schema-v11.sql"),
      new Migration(12, "the event history: events, event_ids", "schema-v12.sql"),
      new Migration(13, "jobs: claim_jobs returns each job's due time (functions only)", "schema-v13.sql"),
      new Migration(14, "jobs: claim_jobs says when the rate limit cut a claim short (functions only)",
          "schema-v14.sql"));

  static final int LATEST = MIGRATIONS.get(MIGRATIONS.size() - 1).version();

  /** Every function, applied after the migrations. */
  static final String FUNCTIONS = "functions.sql";
  /** The SHA-256 (hex) of {@link #FUNCTIONS} as shipped, before the schema name is put in. */
  static final String FUNCTIONS_SHA256 = sha256(resource(FUNCTIONS));

  private SchemaMigrator() {}

  /**
   * Brings {@code schema} to {@link #LATEST} and its functions to {@link #FUNCTIONS}; returns the version found
   * before (0 = none). Logs one INFO line when it changed something (each step is a DEBUG line), none otherwise.
   */
  static int migrate(Connection c, String schema) throws SQLException {
    int found = version(c, schema);
    if (found == LATEST && FUNCTIONS_SHA256.equals(functionsSha256(c, schema))) {
      return found;
    }
    checkNotNewer(schema, found);
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      try (PreparedStatement lock =
          c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext('allot-schema'), hashtext(?))")) {
        lock.setString(1, schema);
        lock.execute();
      }
      found = version(c, schema);
      checkNotNewer(schema, found);
      String functions = found == LATEST ? functionsSha256(c, schema) : null;
      boolean changed = false;
      try (Statement st = c.createStatement()) {
        if (!schemaExists(c, schema)) {
          st.execute("CREATE SCHEMA " + quote(schema));
        }
        st.execute("CREATE TABLE IF NOT EXISTS " + quote(schema) + ".allot_schema_version ("
            + "version integer PRIMARY KEY, description text NOT NULL, "
            + "applied_at timestamptz NOT NULL DEFAULT clock_timestamp())");
        for (Migration m : MIGRATIONS) {
          if (m.version() <= found) {
            continue;
          }
          st.execute(script(m.resource(), schema));
          try (PreparedStatement ins = c.prepareStatement(
              "INSERT INTO " + quote(schema) + ".allot_schema_version (version, description) VALUES (?, ?)")) {
            ins.setInt(1, m.version());
            ins.setString(2, m.description());
            ins.executeUpdate();
          }
          changed = true;
          log.debug("PostgreSQL schema {}: applied version {} ({})", schema, m.version(), m.description());
        }
        if (!FUNCTIONS_SHA256.equals(functions)) {
          st.execute(script(FUNCTIONS, schema));
          // on the latest version's row only: an earlier row keeps none (it may have had one before an upgrade)
          try (PreparedStatement upd = c.prepareStatement("UPDATE " + quote(schema)
              + ".allot_schema_version SET functions_sha256 = CASE WHEN version = ? THEN ? END")) {
            upd.setInt(1, LATEST);
            upd.setString(2, FUNCTIONS_SHA256);
            upd.executeUpdate();
          }
          changed = true;
          log.debug("PostgreSQL schema {}: applied {} (sha256 {}, was {})", schema, FUNCTIONS, FUNCTIONS_SHA256,
              functions);
        }
      }
      c.commit();
      if (changed) { // the one INFO line of a migration; its steps are DEBUG lines
        log.info("PostgreSQL schema {} migrated from version {} to {} (functions sha256 {})", schema, found, LATEST,
            FUNCTIONS_SHA256.substring(0, 12));
      }
      return found;
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  /**
   * The schema's version: 0 if it has no version table (or does not exist).
   *
   * <p>The existence check scans pg_class and pg_namespace (a fresh MVCC snapshot) rather than calling
   * {@code to_regclass}: after waiting for the advisory lock, this backend's catalog caches may still hold "does
   * not exist" from before the other process committed (invalidations are only processed when a relation is
   * locked or a transaction starts), so {@code to_regclass} would send a second process into a migration that was
   * already applied. Scanning the catalogs also locks them, which processes those invalidations, so the next
   * statement resolves the version table's name correctly.
   */
  static int version(Connection c, String schema) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class r "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace "
        + "WHERE n.nspname = ? AND r.relname = 'allot_schema_version')")) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          return 0;
        }
      }
    }
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT coalesce(max(version), 0) FROM " + quote(schema)
            + ".allot_schema_version")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** The SHA-256 of the functions applied on top of {@link #LATEST}; null if none recorded. */
  private static String functionsSha256(Connection c, String schema) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT functions_sha256 FROM " + quote(schema)
        + ".allot_schema_version WHERE version = ?")) {
      ps.setInt(1, LATEST);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static boolean schemaExists(Connection c, String schema) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static void checkNotNewer(String schema, int found) {
    if (found > LATEST) {
      throw new IllegalStateException("PostgreSQL schema '" + schema + "' is at version " + found
          + ", newer than this allot understands (" + LATEST + "): upgrade allot");
    }
  }

  /** The script {@code resource} with {@code ${schema}} replaced by the quoted schema name. */
  static String script(String resource, String schema) {
    return resource(resource).replace("${schema}", quote(schema));
  }

  private static String resource(String resource) {
    try (InputStream in = SchemaMigrator.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An SQL identifier in double quotes. */
  static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }
}
