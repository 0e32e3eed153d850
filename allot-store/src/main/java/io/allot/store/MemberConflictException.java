package io.allot.store;

/**
 * A registration named a member id whose lease is live under another session: two processes advertise the same
 * address (both say {@code 127.0.0.1:7001}, say), or a restarted process came back before its old lease ran out.
 * Nothing was changed: the live session keeps its units until its lease ends.
 */
public final class MemberConflictException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String pool;
  private final String id;
  private final long liveUntilMillis;

  /**
   * @param liveUntilMillis the store time (epoch millis) from which the id may register again: the live session's
   *                        lease end plus the store's clock margin, unless the session renews meanwhile
   */
  public MemberConflictException(String pool, String id, long liveUntilMillis) {
    super("member id '" + id + "' is live in pool '" + pool + "' under another session (until store time "
        + liveUntilMillis + " ms unless renewed): another process advertises the same address, or this one restarted"
        + " before its old lease ran out; give each process its own host:port");
    this.pool = pool;
    this.id = id;
    this.liveUntilMillis = liveUntilMillis;
  }

  /** The pool. */
  public String pool() {
    return pool;
  }

  /** The member id. */
  public String id() {
    return id;
  }

  /** From when the id may register again unless the live session renews (store time, epoch millis). */
  public long liveUntilMillis() {
    return liveUntilMillis;
  }
}
