package io.allot.store.spi;

import io.allot.store.Subscription;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * For store implementations: the local side of pub/sub. Keeps channel to listeners, tells the store when a channel
 * gains its first listener or loses its last (to {@code SUBSCRIBE}/{@code LISTEN} or stop), and delivers incoming
 * messages in order on one daemon thread, so a slow listener never blocks the connection's I/O thread.
 *
 * <p>Thread-safe: {@code lock} guards the first/last transitions; the listener lists are copy-on-write.
 */
public final class ChannelListeners implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ChannelListeners.class);

  /** What the store does when a channel gains its first listener or loses its last. */
  public interface Hooks {
    /** Called under the registry's lock before the listener is active; throwing rolls the subscription back. */
    void firstListener(String channel);

    /** Called under the registry's lock after the last listener of {@code channel} left. */
    void lastListenerGone(String channel);
  }

  /** Hooks that do nothing (an in-process store). */
  public static final Hooks NO_HOOKS = new Hooks() {
    @Override
    public void firstListener(String channel) {}

    @Override
    public void lastListenerGone(String channel) {}
  };

  private final Hooks hooks;
  private final Object lock = new Object();
  /** channel -> active listeners; entries are added and removed under {@code lock}. */
  private final Map<String, CopyOnWriteArrayList<Entry>> byChannel = new ConcurrentHashMap<>();
  private final ExecutorService dispatcher;

  private final class Entry implements Subscription {
    final String channel;
    final Consumer<String> listener;
    volatile boolean active = true;

    Entry(String channel, Consumer<String> listener) {
      this.channel = channel;
      this.listener = listener;
    }

    @Override
    public void close() {
      if (active) {
        active = false;
        remove(this);
      }
    }
  }

  /** A registry whose delivery thread is called {@code threadName}. */
  public ChannelListeners(String threadName, Hooks hooks) {
    this.hooks = Objects.requireNonNull(hooks, "hooks");
    this.dispatcher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /** Adds a listener; the first one of a channel calls {@link Hooks#firstListener} (which may throw). */
  public Subscription add(String channel, Consumer<String> listener) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(listener, "listener");
    Entry e = new Entry(channel, listener);
    synchronized (lock) {
      CopyOnWriteArrayList<Entry> list = byChannel.get(channel);
      if (list == null) {
        hooks.firstListener(channel);
        list = new CopyOnWriteArrayList<>();
        byChannel.put(channel, list);
      }
      list.add(e);
    }
    return e;
  }

  private void remove(Entry e) {
    synchronized (lock) {
      CopyOnWriteArrayList<Entry> list = byChannel.get(e.channel);
      if (list == null || !list.remove(e) || !list.isEmpty()) {
        return;
      }
      byChannel.remove(e.channel);
      try {
        hooks.lastListenerGone(e.channel);
      } catch (RuntimeException ex) {
        log.debug("unsubscribing {} failed: {}", e.channel, ex.toString());
      }
    }
  }

  /** The channels that have listeners now. */
  public Set<String> channels() {
    return Set.copyOf(byChannel.keySet());
  }

  /** True if {@code channel} has a listener. */
  public boolean has(String channel) {
    return byChannel.containsKey(channel);
  }

  /** Queues {@code message} for every listener of {@code channel}; returns at once (any thread). */
  public void dispatch(String channel, String message) {
    List<Entry> list = byChannel.get(channel);
    if (list == null) {
      return;
    }
    for (Entry e : list) {
      try {
        dispatcher.execute(() -> {
          if (!e.active) {
            return;
          }
          try {
            e.listener.accept(message);
          } catch (RuntimeException ex) {
            log.warn("listener on channel '{}' failed on message '{}'", channel, message, ex);
          }
        });
      } catch (RejectedExecutionException ex) {
        return; // closing
      }
    }
  }

  /** Deactivates every listener and stops the delivery thread (waits up to 1 s for a running listener). */
  @Override
  public void close() {
    synchronized (lock) {
      byChannel.values().forEach(list -> list.forEach(e -> e.active = false));
      byChannel.clear();
    }
    dispatcher.shutdownNow();
    try {
      dispatcher.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
