package io.allot.store;

import java.util.function.Consumer;

/**
 * Change hints. A hint, not a log: a message published while a subscriber is disconnected is lost, so consumers
 * also poll (level-triggered reconciliation). Each store maps a {@link Topic} onto its own mechanism (Redis pub/sub
 * channels and keyspace notifications, PostgreSQL {@code LISTEN/NOTIFY}, an in-process queue).
 */
public interface Notifications {

  /**
   * Delivers every message later published on {@code topic} to {@code listener}, in order, on a thread of the store
   * (never the caller's); when this returns, the subscription is active. A listener must not block for long.
   */
  Subscription subscribe(Topic topic, Consumer<String> listener);

  /** Publishes {@code message} on {@code topic} to the current subscribers. */
  void publish(Topic topic, String message);
}
