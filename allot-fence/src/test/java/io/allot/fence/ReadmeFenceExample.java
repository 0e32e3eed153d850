package io.allot.fence;

import io.allot.store.Stores;
import io.allot.worker.Divider;
import io.allot.worker.UnitContext;
import io.allot.worker.UnitRunner;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** The README's example, compiled here so that it stays true (ReadmeFenceExampleTest runs its handler). */
public final class ReadmeFenceExample {
  static final JdbcFence fence = JdbcFence.builder().table("allot_fence").build();

  public static void main(String[] args) throws Exception {
    var db = new PGSimpleDataSource();
    db.setURL("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    try (Connection conn = db.getConnection()) {
      fence.createTableIfMissing(conn);                 // once; or fence.createTableSql(POSTGRESQL) in a migration
    }
    var store = Stores.open("redis://127.0.0.1:6379");
    var divider = Divider.builder(store).pool("sys-parsers-lists").port(7001).build();
    var runner = UnitRunner.builder(divider, unit -> {
      while (!unit.stopRequested()) {
        scrapeAndStore(db, unit);                       // throws StaleTokenException once a newer owner has written
        unit.awaitStop(Duration.ofSeconds(5));
      }
    }).build();
    runner.start();
    Thread.currentThread().join();
  }

  static void scrapeAndStore(DataSource db, UnitContext unit) throws SQLException {
    String page = scrape(unit.unit());                  // slow: a pause here may outlive the lease
    try (Connection conn = db.getConnection()) {
      conn.setAutoCommit(false);
      try {
        fence.check(conn, unit.unit(), unit.token());   // first, in the write's transaction: "site-42", its token
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO pages (site, body) VALUES (?, ?)")) {
          ps.setString(1, unit.unit());
          ps.setString(2, page);
          ps.executeUpdate();
        }
        conn.commit();                                  // the fence row stays locked until here
      } catch (SQLException | RuntimeException e) {
        conn.rollback();                                // a stale owner's write never lands
        throw e;
      }
    }
  }

  static String scrape(String site) {
    return "<html>" + site + "</html>";
  }
}
