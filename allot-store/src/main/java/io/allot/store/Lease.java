package io.allot.store;

import java.util.Objects;

/**
 * A lease held in a {@link Store}: who holds {@code name}, with which fencing token.
 *
 * <p>The token strictly increases with every acquisition of the same name, so a write carrying a lower token than
 * the current one comes from a deposed holder and must be rejected (see {@link Tables#publish}).
 *
 * @param name   the lease name (for a table publication: {@link Tables#leaseName(String, String)})
 * @param holder who holds it (a distributor id, a member address, ...)
 * @param token  the fencing token of this acquisition
 */
public record Lease(String name, String holder, long token) {
  public Lease {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holder, "holder");
  }
}
