package io.allot.store;

import java.util.Objects;
import java.util.Optional;

/**
 * A write carried a lease that is no longer the current one for its name (expired, released, or taken over by
 * another holder). Nothing was changed.
 */
public final class FencedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Lease lease;
  private final transient Lease current;

  public FencedException(Lease lease, Optional<Lease> current) {
    super(message(Objects.requireNonNull(lease, "lease"), current));
    this.lease = lease;
    this.current = current.orElse(null);
  }

  /** The stale lease the write carried. */
  public Lease lease() {
    return lease;
  }

  /** The lease current when the write was refused; empty when nobody held the name. */
  public Optional<Lease> current() {
    return Optional.ofNullable(current);
  }

  private static String message(Lease lease, Optional<Lease> current) {
    String now = current
        .map(c -> "it is now held by '" + c.holder() + "' with token " + c.token())
        .orElse("nobody holds it now (expired or released)");
    return "fenced: lease '" + lease.name() + "' of holder '" + lease.holder() + "' with token " + lease.token()
        + " is no longer current; " + now;
  }
}
