package io.allot.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.worker.StopReason;
import io.allot.worker.UnitContext;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** Runs the README example's handler against PostgreSQL, in a schema of its own (the search path finds the tables). */
class ReadmeFenceExampleTest {
  private final String schema = "fence_readme_" + Long.toHexString(System.nanoTime());
  private PGSimpleDataSource db;

  @BeforeEach
  void setUp() throws SQLException {
    try (Connection c = TestDbs.postgres(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    db = new PGSimpleDataSource();
    db.setURL(TestDbs.postgresJdbcUrl());
    db.setCurrentSchema(schema);
    try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE pages (site text NOT NULL, body text NOT NULL)");
      ReadmeFenceExample.fence.createTableIfMissing(c);
    }
  }

  @AfterEach
  void tearDown() throws SQLException {
    try (Connection c = TestDbs.postgres(); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA " + schema + " CASCADE");
    }
  }

  @Test
  void theOwnerWritesAndAnOlderOwnerIsRefused() throws SQLException {
    ReadmeFenceExample.scrapeAndStore(db, new Owned("site-42", 100));
    ReadmeFenceExample.scrapeAndStore(db, new Owned("site-42", 100));
    ReadmeFenceExample.scrapeAndStore(db, new Owned("site-42", 120)); // the next owner
    assertThatThrownBy(() -> ReadmeFenceExample.scrapeAndStore(db, new Owned("site-42", 100)))
        .isInstanceOf(StaleTokenException.class);
    assertThat(pages()).isEqualTo(3);
  }

  private int pages() throws SQLException {
    try (Connection c = db.getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*) FROM pages WHERE site = 'site-42'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** The context of a unit owned with {@code token} whose stop is never requested. */
  private record Owned(String unit, long token) implements UnitContext {
    @Override
    public boolean stopRequested() {
      return false;
    }

    @Override
    public Optional<StopReason> stopReason() {
      return Optional.empty();
    }

    @Override
    public boolean awaitStop(Duration timeout) {
      return false;
    }
  }
}
