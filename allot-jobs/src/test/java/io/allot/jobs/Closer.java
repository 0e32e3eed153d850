package io.allot.jobs;

import java.util.ArrayList;
import java.util.List;

/** What a test opened, closed at its end in reverse order. Used by the test's thread only (no guard). */
final class Closer implements AutoCloseable {
  private final List<AutoCloseable> open = new ArrayList<>();

  /** Closes {@code c} at the end (before what was added earlier); returns it. */
  <T extends AutoCloseable> T add(T c) {
    open.add(c);
    return c;
  }

  @Override
  public void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    open.clear();
  }
}
