package io.allot.store.memory;

/**
 * What the pool-scoped roles of the {@link MemoryStore} share: the store's {@link MemoryState} and the pool they
 * view. A cheap immutable view.
 */
abstract class MemoryPoolView {
  final MemoryState s;
  final String pool;

  MemoryPoolView(MemoryState state, String pool) {
    this.s = state;
    this.pool = pool;
  }

  /** The pool this view is of. */
  public final String pool() {
    return pool;
  }
}
