package io.allot.store.postgres;

import io.allot.store.Notifications;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.allot.store.spi.ChannelListeners;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Notifications} on LISTEN/NOTIFY: topics travel as described in {@link PgChannels}; the LISTEN connection is
 * {@link NotificationListener}'s; listeners are kept and called by {@link ChannelListeners} (in order, on the store's
 * thread {@code allot-postgres-notify}).
 *
 * <p>{@code subscribe} registers the listener, then returns once the LISTEN is in place, or closes the subscription
 * and throws {@link StoreUnavailableException} after {@link PostgresStoreConfig#subscribeTimeout()} (at once when
 * the server is unreachable); it waits outside the {@link ChannelListeners}' lock. Closing the last subscription of
 * a channel UNLISTENs within one poll interval of the listener.
 *
 * <p>Thread-safe: {@code listened} is changed under the {@link ChannelListeners}' lock (its hooks) and read by the
 * listener thread (a concurrent map).
 */
final class PgNotifications implements Notifications, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PgNotifications.class);
  private static final String NOTIFY = "SELECT pg_notify(?, ?)";

  private final PgJdbc db;
  private final PgChannels channels;
  private final long subscribeTimeoutMillis;
  /** PostgreSQL channel -> how many subscribed allot channels map to it (more than one only on a hash collision). */
  private final Map<String, Integer> listened = new ConcurrentHashMap<>();
  private final ChannelListeners listeners;
  private final NotificationListener listener;

  PgNotifications(PgJdbc db, PgChannels channels, PostgresStoreConfig config) {
    this.db = db;
    this.channels = channels;
    this.subscribeTimeoutMillis = config.subscribeTimeout().toMillis();
    this.listeners = new ChannelListeners("allot-postgres-notify", new ChannelListeners.Hooks() {
      @Override
      public void firstListener(String channel) {
        listened.merge(channels.pgChannel(channel), 1, Integer::sum);
      }

      @Override
      public void lastListenerGone(String channel) {
        // the listener UNLISTENs within one poll interval; stray messages meanwhile find no listener
        listened.computeIfPresent(channels.pgChannel(channel), (pg, n) -> n == 1 ? null : n - 1);
      }
    });
    String listenName = config.applicationName() + "-listen";
    this.listener = new NotificationListener(() -> db.unpooledConnection(listenName), this::listenedChannels,
        this::received, this::wakeListener, db.where(), config);
  }

  /** Starts the LISTEN thread. */
  void start() {
    listener.start();
  }

  /** Whether the LISTEN connection is up (it reconnects by itself). */
  boolean isListening() {
    return listener.isConnected();
  }

  @Override
  public Subscription subscribe(Topic topic, Consumer<String> onMessage) {
    Objects.requireNonNull(topic, "topic");
    db.checkOpen();
    Subscription sub = listeners.add(topic.channel(), onMessage);
    try {
      listener.awaitListening(channels.pgChannel(topic.channel()), subscribeTimeoutMillis);
    } catch (RuntimeException e) {
      sub.close();
      throw e;
    }
    return sub;
  }

  @Override
  public void publish(Topic topic, String message) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(message, "message");
    PgChannels.Note note = channels.note(topic, message);
    db.query("notify " + topic.channel(), NOTIFY, PgJdbc.NOTHING, note.pgChannel(), note.payload());
  }

  /** Closes the LISTEN connection (failing subscribes still waiting for it) and stops delivery. */
  @Override
  public void close() {
    listener.close();
    listeners.close();
  }

  // ---------------------------------------------------------------- the listener thread's callbacks

  /** The PostgreSQL channels somebody subscribed to. */
  private Set<String> listenedChannels() {
    return new HashSet<>(listened.keySet());
  }

  /** A notification: decoded and checked here, then handed to the delivery thread at once. */
  private void received(String pgChannel, String payload) {
    PgChannels.Decoded d = PgChannels.decodePayload(payload);
    if (d == null || !channels.pgChannel(d.channel()).equals(pgChannel)) {
      log.debug("ignoring a notification on {} that allot did not send: '{}'", pgChannel, payload);
      return;
    }
    listeners.dispatch(d.channel(), d.message());
  }

  private void wakeListener() {
    if (!db.isClosed()) {
      db.query("wake the listener", NOTIFY, PgJdbc.NOTHING, listener.wakeChannel(), "");
    }
  }
}
