package io.allot.store;

/** A live subscription to a channel; {@link #close()} stops delivery (idempotent, never throws a checked exception). */
public interface Subscription extends AutoCloseable {
  @Override
  void close();
}
