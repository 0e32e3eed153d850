package io.allot.store.postgres;

import io.allot.store.StoreUnavailableException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The LISTEN side of pub/sub: one dedicated connection (not from the pool) and one thread that owns it.
 *
 * <p>The thread waits for notifications with {@link PGConnection#getNotifications(int)} (which holds the
 * connection's lock while it waits, so every command on this connection runs on this thread) and keeps the set of
 * LISTENed channels equal to {@link #desired} (level-triggered: after a reconnect it simply LISTENs to everything
 * again). A subscriber that needs a new channel queues a request and wakes the thread with a NOTIFY on the
 * thread's private wake channel (sent through the pool by {@code waker}); the request completes once the LISTEN is
 * in place, or fails if the connection cannot be (re-)established.
 *
 * <p>A lost connection is re-opened with exponential backoff; notifications sent meanwhile are lost (pub/sub is a
 * hint). A silent connection is checked with a query after {@code ping} without traffic, so a half-open TCP
 * connection is noticed within about ping + socket timeout.
 */
final class NotificationListener {
  private static final Logger log = LoggerFactory.getLogger(NotificationListener.class);

  interface Connector {
    Connection connect() throws SQLException;
  }

  private record Request(String channel, CompletableFuture<Void> done) {}

  private final Connector connector;
  private final Supplier<Set<String>> desired;
  private final BiConsumer<String, String> sink;
  private final Runnable waker;
  private final String where;
  private final int pollMillis;
  private final long pingNanos;
  private final long delayMinMillis;
  private final long delayMaxMillis;
  private final String wakeChannel;

  private final ConcurrentLinkedQueue<Request> requests = new ConcurrentLinkedQueue<>();
  private final Semaphore wakeLocal = new Semaphore(0);
  private final Thread thread;
  private volatile boolean closed;
  private volatile Connection connection; // owned by the thread; read by close() to abort it
  private volatile boolean connected;
  private volatile Throwable lastFailure;

  // thread-confined
  private final Set<String> listening = new HashSet<>();

  NotificationListener(Connector connector, Supplier<Set<String>> desired, BiConsumer<String, String> sink,
      Runnable waker, String where, PostgresStoreConfig config) {
    this.connector = connector;
    this.desired = desired;
    this.sink = sink;
    this.waker = waker;
    this.where = where;
    this.pollMillis = (int) Math.min(Integer.MAX_VALUE, config.listenerPoll().toMillis());
    this.pingNanos = config.listenerPing().toNanos();
    this.delayMinMillis = config.reconnectDelayMin().toMillis();
    this.delayMaxMillis = config.reconnectDelayMax().toMillis();
    byte[] random = new byte[8];
    new SecureRandom().nextBytes(random);
    this.wakeChannel = "allot_wake_" + HexFormat.of().formatHex(random);
    this.thread = new Thread(this::run, "allot-postgres-listen");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** The private channel whose NOTIFY wakes the thread. */
  String wakeChannel() {
    return wakeChannel;
  }

  /** Whether the LISTEN connection is currently up. */
  boolean isConnected() {
    return connected;
  }

  /**
   * Returns once {@code channel} (already in {@link #desired}) is LISTENed on a live connection.
   *
   * @throws StoreUnavailableException if that does not happen within {@code timeoutMillis}
   */
  void awaitListening(String channel, long timeoutMillis) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    requests.add(new Request(channel, done));
    wake();
    try {
      done.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      throw new StoreUnavailableException("cannot LISTEN on " + where + ": " + cause, cause);
    } catch (TimeoutException e) {
      Throwable last = lastFailure;
      throw new StoreUnavailableException("no LISTEN connection to " + where + " within " + timeoutMillis + " ms"
          + (last == null ? "" : ": " + last.getMessage()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while subscribing on " + where, e);
    }
  }

  /** Wakes the thread: at once if it is between connection attempts, through a NOTIFY if it is waiting on one. */
  void wake() {
    wakeLocal.release();
    if (connected) {
      try {
        waker.run();
      } catch (RuntimeException e) {
        // best effort: the thread also wakes up on its own every poll interval
        log.debug("waking the listener of {} failed: {}", where, e.toString());
      }
    }
  }

  void close() {
    closed = true;
    wakeLocal.release();
    Connection c = connection;
    if (c != null) {
      try {
        c.abort(Runnable::run); // closes the socket: getNotifications returns at once
      } catch (SQLException | RuntimeException e) {
        log.debug("aborting the LISTEN connection to {} failed: {}", where, e.toString());
      }
    }
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    failRequests(new IllegalStateException("PostgresStore for " + where + " is closed"));
  }

  // ---------------------------------------------------------------- the thread

  private void run() {
    long delay = delayMinMillis;
    boolean wasConnected = false;
    long lastTraffic = System.nanoTime();
    List<Request> batch = new ArrayList<>();
    while (!closed) {
      if (connection == null) {
        try {
          open();
          delay = delayMinMillis;
          lastTraffic = System.nanoTime();
          if (wasConnected) {
            log.info("LISTEN connection to {} re-established", where);
          }
          wasConnected = true;
        } catch (SQLException | RuntimeException e) {
          lastFailure = e;
          failRequests(new StoreUnavailableException("cannot open the LISTEN connection to " + where + ": "
              + e.getMessage(), e));
          sleep(delay);
          delay = Math.min(delayMaxMillis, delay * 2);
          continue;
        }
      }
      try {
        Request r;
        while ((r = requests.poll()) != null) {
          batch.add(r);
        }
        sync();
        batch.forEach(req -> req.done().complete(null));
        batch.clear();
        PGNotification[] notes = connection.unwrap(PGConnection.class).getNotifications(pollMillis);
        long now = System.nanoTime();
        if (notes != null && notes.length > 0) {
          lastTraffic = now;
          for (PGNotification n : notes) {
            if (!n.getName().equals(wakeChannel)) {
              try {
                sink.accept(n.getName(), n.getParameter());
              } catch (RuntimeException e) {
                log.warn("dropping a notification on {} from {}", n.getName(), where, e);
              }
            }
          }
        } else if (now - lastTraffic > pingNanos) {
          try (Statement st = connection.createStatement()) {
            st.execute("SELECT 1");
          }
          lastTraffic = now;
        }
      } catch (SQLException | RuntimeException e) {
        if (closed) {
          break;
        }
        lastFailure = e;
        log.warn("lost the LISTEN connection to {} ({}); reconnecting", where, e.getMessage());
        closeConnection();
        requests.addAll(batch); // retried on the next connection, or failed if there is none
        batch.clear();
      }
    }
    closeConnection();
  }

  private void open() throws SQLException {
    Connection c = connector.connect();
    try {
      c.setAutoCommit(true);
      try (Statement st = c.createStatement()) {
        st.execute("LISTEN " + SchemaMigrator.quote(wakeChannel));
      }
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    listening.clear();
    connection = c;
    connected = true;
    if (closed) {
      closeConnection();
    }
  }

  /** LISTENs to every desired channel not listened yet, UNLISTENs the ones nobody wants any more. */
  private void sync() throws SQLException {
    Set<String> want = desired.get();
    StringBuilder sql = new StringBuilder();
    List<String> added = new ArrayList<>();
    for (String c : want) {
      if (!listening.contains(c)) {
        sql.append("LISTEN ").append(SchemaMigrator.quote(c)).append(';');
        added.add(c);
      }
    }
    List<String> removed = new ArrayList<>();
    for (Iterator<String> it = listening.iterator(); it.hasNext(); ) {
      String c = it.next();
      if (!want.contains(c)) {
        sql.append("UNLISTEN ").append(SchemaMigrator.quote(c)).append(';');
        removed.add(c);
      }
    }
    if (sql.length() == 0) {
      return;
    }
    try (Statement st = connection.createStatement()) {
      st.execute(sql.toString());
    }
    listening.addAll(added);
    removed.forEach(listening::remove);
  }

  private void closeConnection() {
    Connection c = connection;
    connection = null;
    connected = false;
    listening.clear();
    if (c != null) {
      try {
        c.close();
      } catch (SQLException | RuntimeException e) {
        log.debug("closing the LISTEN connection to {} failed: {}", where, e.toString());
      }
    }
  }

  private void failRequests(RuntimeException e) {
    Request r;
    while ((r = requests.poll()) != null) {
      r.done().completeExceptionally(e);
    }
  }

  private void sleep(long millis) {
    try {
      if (wakeLocal.tryAcquire(millis, TimeUnit.MILLISECONDS)) {
        wakeLocal.drainPermits();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
  }
}
