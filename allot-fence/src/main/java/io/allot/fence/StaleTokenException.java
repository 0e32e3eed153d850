package io.allot.fence;

/**
 * A fenced write was refused because a newer owner has already written to the resource: the token offered is smaller
 * than the one in force. Nothing was written by the refused call. The owner that gets this has lost the resource
 * (its lease ran out and another member took over); it must stop, and in a transaction, roll back.
 */
public final class StaleTokenException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String resource;
  private final long offered;
  private final long inForce;

  /**
   * @param resource the fenced resource (a fence table's row, or a Redis data key)
   * @param offered the token the refused write carried
   * @param inForce the token the resource had accepted last (larger than {@code offered})
   */
  public StaleTokenException(String resource, long offered, long inForce) {
    super("stale fencing token for '" + resource + "': offered " + offered + ", but " + inForce
        + " is in force (a newer owner has written; this owner lost the resource)");
    this.resource = resource;
    this.offered = offered;
    this.inForce = inForce;
  }

  /** The fenced resource. */
  public String resource() {
    return resource;
  }

  /** The token the refused write carried. */
  public long offered() {
    return offered;
  }

  /** The token in force: the largest the resource has accepted (larger than {@link #offered()}). */
  public long inForce() {
    return inForce;
  }
}
