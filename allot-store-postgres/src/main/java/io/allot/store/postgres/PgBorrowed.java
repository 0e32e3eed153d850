package io.allot.store.postgres;

import io.allot.store.StoreUnavailableException;
import io.allot.store.spi.Proxies;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's {@link DataSource} as a {@link PostgresStore} borrows it ({@link PostgresStore#connect(DataSource,
 * java.util.function.UnaryOperator)}): the store's pool and its LISTEN connection take their connections from it, and
 * every connection the store gives back is first reset ({@code RESET statement_timeout; UNLISTEN *}), so the
 * application's pool never gets one with allot's session settings. The DataSource itself is never closed here.
 */
final class PgBorrowed {
  private static final Logger log = LoggerFactory.getLogger(PgBorrowed.class);
  private static final String RESET = "RESET statement_timeout; UNLISTEN *";

  private PgBorrowed() {}

  /** {@code source} whose connections reset allot's session settings when closed. */
  static DataSource resetting(DataSource source) {
    return (DataSource) Proxy.newProxyInstance(PgBorrowed.class.getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, method, args) -> {
          Object result = Proxies.invoke(source, method, args);
          return result instanceof Connection c && method.getName().equals("getConnection") ? resetting(c) : result;
        });
  }

  /**
   * {@code c}, reset when closed. Aborting it (how the store's LISTEN thread is woken at close) closes it instead,
   * once the thread's wait for notifications is over (within {@link PostgresStoreConfig#listenerPoll()}): an aborted
   * connection would reach the application's pool broken.
   */
  private static Connection resetting(Connection c) {
    return (Connection) Proxy.newProxyInstance(PgBorrowed.class.getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          boolean abort = method.getName().equals("abort");
          if ((abort || method.getName().equals("close") && method.getParameterCount() == 0) && !c.isClosed()) {
            try (Statement st = c.createStatement()) {
              st.execute(RESET);
            } catch (SQLException e) {
              log.debug("resetting a borrowed connection failed: {}", e.toString());
            }
          }
          if (abort) {
            c.close();
            return null;
          }
          return Proxies.invoke(c, method, args);
        });
  }

  /**
   * The JDBC URL of {@code source}'s database, read from a connection's metadata (only to name the store in messages;
   * a password in it is never shown).
   *
   * @throws IllegalArgumentException if the DataSource is not PostgreSQL's
   * @throws StoreUnavailableException if it gives no connection
   */
  static String urlOf(DataSource source) {
    try (Connection c = source.getConnection()) {
      DatabaseMetaData meta = c.getMetaData();
      if (!"PostgreSQL".equals(meta.getDatabaseProductName())) {
        throw new IllegalArgumentException("the DataSource is " + meta.getDatabaseProductName()
            + "'s, not PostgreSQL's: the PostgreSQL store cannot use it");
      }
      return meta.getURL();
    } catch (SQLException e) {
      throw new StoreUnavailableException("cannot connect through the DataSource: " + PgJdbc.rootMessage(e), e);
    }
  }
}
