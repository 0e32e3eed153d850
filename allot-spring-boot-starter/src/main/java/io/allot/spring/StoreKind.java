package io.allot.spring;

import java.util.Locale;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Whether {@code allot.store} names a kind of store (by its URI scheme), for reusing the application's client. */
abstract class StoreKind implements Condition {
  private final boolean orUnset;
  private final String[] schemes;

  StoreKind(boolean orUnset, String... schemes) {
    this.orUnset = orUnset;
    this.schemes = schemes;
  }

  @Override
  public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
    String store = context.getEnvironment().getProperty("allot.store");
    if (store == null || store.isBlank()) {
      return orUnset;
    }
    String lower = store.trim().toLowerCase(Locale.ROOT);
    for (String scheme : schemes) {
      if (lower.startsWith(scheme + "://")) {
        return true;
      }
    }
    return false;
  }

  /** {@code allot.store} unset, or {@code postgresql://} / {@code postgres://}. */
  static final class PostgresOrUnset extends StoreKind {
    PostgresOrUnset() {
      super(true, "postgresql", "postgres");
    }
  }

  /** {@code allot.store} is {@code redis://} or {@code rediss://} (one server). */
  static final class Redis extends StoreKind {
    Redis() {
      super(false, "redis", "rediss");
    }
  }
}
