package io.allot.store.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and migrates allot's schema. The applied versions are rows of {@code <schema>.allot_schema_version}.
 *
 * <p>A connect first reads the version without locking anything (so a running system needs no DDL privilege); if it
 * is behind, the migration runs in one transaction holding {@code pg_advisory_xact_lock(hashtext('allot-schema'),
 * hashtext(<schema>))} and re-reads the version under the lock, so processes starting at once migrate exactly once
 * and the others wait, then find the schema current. A schema newer than this code is refused.
 */
final class SchemaMigrator {
  private static final Logger log = LoggerFactory.getLogger(SchemaMigrator.class);

  record Migration(int version, String description, String resource) {}

  static final List<Migration> MIGRATIONS = List.of(
      new Migration(1, "lists, hashes, leases, fenced publication, membership, ownership", "schema-v1.sql"),
      new Migration(2, "batched claims", "schema-v2.sql"),
      new Migration(3, "claims wait for an owner's renewal in flight", "schema-v3.sql"));

  static final int LATEST = MIGRATIONS.get(MIGRATIONS.size() - 1).version();

  private SchemaMigrator() {}

  /** Brings {@code schema} to {@link #LATEST}; returns the version found before (0 = none). */
  static int migrate(Connection c, String schema) throws SQLException {
    int found = version(c, schema);
    if (found == LATEST) {
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
          log.info("PostgreSQL schema {}: applied version {} ({})", schema, m.version(), m.description());
        }
      }
      c.commit();
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

  /** The migration script with {@code ${schema}} replaced by the quoted schema name. */
  static String script(String resource, String schema) {
    try (InputStream in = SchemaMigrator.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${schema}", quote(schema));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
  }

  /** An SQL identifier in double quotes. */
  static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }
}
