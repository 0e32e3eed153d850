package io.allot.store.redis;

import java.time.Duration;
import java.util.Objects;

/** Argument checks the roles share; each names what is wrong. */
final class Args {
  private Args() {}

  /** {@code ttl} in whole milliseconds, as a script argument; at least 1 ms. */
  static String ttlMillis(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1 ms but was " + ttl);
    }
    return Long.toString(ttl.toMillis());
  }

  /** A member id: not null, not empty. */
  static String memberId(String id) {
    Objects.requireNonNull(id, "member id");
    if (id.isEmpty()) {
      throw new IllegalArgumentException("member id is empty");
    }
    return id;
  }
}
