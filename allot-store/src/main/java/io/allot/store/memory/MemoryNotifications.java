package io.allot.store.memory;

import io.allot.store.Notifications;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * {@link Notifications} of the {@link MemoryStore}: the listeners of {@link MemoryState}, called in order on one
 * daemon thread. A publication is dispatched under the state's lock, like every change's announcement, so it keeps
 * its place among them. Immutable (the state is the store's).
 */
final class MemoryNotifications implements Notifications {
  private final MemoryState s;

  MemoryNotifications(MemoryState state) {
    this.s = state;
  }

  @Override
  public Subscription subscribe(Topic topic, Consumer<String> listener) {
    Objects.requireNonNull(topic, "topic");
    s.checkOpen();
    return s.listeners.add(topic.channel(), listener);
  }

  @Override
  public void publish(Topic topic, String message) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(message, "message");
    s.lockedRun(() -> {
      s.announce(topic, message);
    });
  }
}
