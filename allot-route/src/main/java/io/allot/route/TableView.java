package io.allot.route;

import io.allot.store.Store;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A live copy of one assignment table: read at open, read again on every announcement of {@link Topic#table} and
 * every 5 s (announcements are hints that can be lost). For a member's {@link OwnerCheckInterceptor} ({@link
 * #ownerOf}) and for tools. Thread-safe; {@link #close()} stops it (the store stays open).
 */
public final class TableView implements AutoCloseable {
  private final Store store;
  private final String tableKey;
  private final ScheduledExecutorService executor;
  private final Subscription subscription;
  /** Set while a re-read is queued. */
  private final AtomicBoolean pending = new AtomicBoolean();
  /** The latest table read; replaced whole. */
  private volatile RouteTable table;

  private TableView(Store store, String tableKey) {
    this.store = store;
    this.tableKey = tableKey;
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "allot-table-view-" + tableKey);
      t.setDaemon(true);
      return t;
    });
    this.subscription = store.notifications().subscribe(Topic.table(tableKey), m -> request());
    this.table = RouteTable.read(store.tables(), tableKey);
    executor.scheduleWithFixedDelay(this::reread, 5, 5, TimeUnit.SECONDS);
  }

  /** Opens a view of {@code tableKey} in {@code store}. */
  public static TableView open(Store store, String tableKey) {
    return new TableView(store, tableKey);
  }

  /** The latest table. */
  public RouteTable table() {
    return table;
  }

  /** The owner of {@code unit} in the latest table, or null. */
  public String ownerOf(String unit) {
    return table.ownerOf(unit);
  }

  private void request() {
    if (pending.compareAndSet(false, true)) {
      try {
        executor.execute(this::reread);
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        // closed meanwhile
      }
    }
  }

  private void reread() {
    pending.set(false);
    try {
      RouteTable t = RouteTable.read(store.tables(), tableKey);
      if (t.epoch() >= table.epoch()) {
        table = t;
      }
    } catch (RuntimeException e) {
      // keep the last table; the next announcement or period reads again
    }
  }

  @Override
  public void close() {
    subscription.close();
    executor.shutdownNow();
  }
}
