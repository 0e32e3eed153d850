package io.allot.store.postgres;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Two stores on one {@link TestSchema} of a test class's own, as two processes would have: connected before the
 * class's tests, closed (and the schema dropped) after them. Register it on a static field with
 * {@code @RegisterExtension}. JUnit runs the lifecycle callbacks and the tests of a class on one thread, which is what
 * guards the stores and {@code flip}.
 */
final class PeerStores implements BeforeAllCallback, AfterAllCallback {
  private final TestSchema schema = TestSchema.random();
  private PostgresStore store;
  private PostgresStore peer;
  private boolean flip;

  @Override
  public void beforeAll(ExtensionContext context) {
    store = schema.connect();
    peer = schema.connect();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (store != null) {
      store.close();
      peer.close();
    }
    schema.close();
  }

  /** The schema both stores work in. */
  TestSchema schema() {
    return schema;
  }

  /** The first store. */
  PostgresStore store() {
    return store;
  }

  /** The second store. */
  PostgresStore peer() {
    return peer;
  }

  /** The two stores in turn: each call the other one. */
  PostgresStore next() {
    flip = !flip;
    return flip ? store : peer;
  }
}
