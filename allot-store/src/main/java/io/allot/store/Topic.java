package io.allot.store;

import java.util.Objects;

/**
 * What a notification is about. Stores map a topic to their own mechanism; {@link #channel()} is the channel name
 * the Redis and PostgreSQL stores use, kept identical to earlier releases so existing subscribers keep working.
 *
 * @param kind what changed
 * @param name the table key, pool, seed key or channel the change is about
 */
public record Topic(Kind kind, String name) {

  /** What changed. */
  public enum Kind {
    /** A table was published; message: the new epoch. Channel {@code allot:notify:<tableKey>}. */
    TABLE("allot:notify:"),
    /** A member of the pool registered, changed or left; message: the member id. Channel {@code allot:members:<pool>}. */
    MEMBERS("allot:members:"),
    /** A unit of the pool was released; message: the unit. Channel {@code allot:owners:<pool>}. */
    RELEASES("allot:owners:"),
    /**
     * A seed key (a services list, the units list) changed; message unspecified. Channel {@code allot:changes:<key>};
     * Redis subscribers also get the key's keyspace notifications when the server has them on.
     */
    KEY("allot:changes:"),
    /** A long-running task spec of the pool changed; message: the task name. Channel {@code allot:specs:<pool>}. */
    TASK_SPECS("allot:specs:"),
    /**
     * The live routing weights of the pool were set ({@link RouteWeights}); message: the new revision. Channel
     * {@code allot:weights:<pool>}.
     */
    ROUTE_WEIGHTS("allot:weights:"),
    /** An application channel, used verbatim. */
    NAMED("");

    private final String prefix;

    Kind(String prefix) {
      this.prefix = prefix;
    }
  }

  public Topic {
    Objects.requireNonNull(kind, "kind");
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("topic name must not be empty (" + kind + ")");
    }
  }

  /** Publications of {@code tableKey}. */
  public static Topic table(String tableKey) {
    return new Topic(Kind.TABLE, tableKey);
  }

  /** Membership changes of {@code pool}. */
  public static Topic members(String pool) {
    return new Topic(Kind.MEMBERS, pool);
  }

  /** Unit releases in {@code pool}. */
  public static Topic releases(String pool) {
    return new Topic(Kind.RELEASES, pool);
  }

  /** Changes of the long-running task specs of {@code pool}. */
  public static Topic taskSpecs(String pool) {
    return new Topic(Kind.TASK_SPECS, pool);
  }

  /** Changes of the live routing weights of {@code pool}. */
  public static Topic routeWeights(String pool) {
    return new Topic(Kind.ROUTE_WEIGHTS, pool);
  }

  /** Changes of the seed key {@code key}. */
  public static Topic key(String key) {
    return new Topic(Kind.KEY, key);
  }

  /** An application channel, used verbatim. */
  public static Topic named(String channel) {
    return new Topic(Kind.NAMED, channel);
  }

  /** The channel name: the kind's prefix followed by the name. */
  public String channel() {
    return kind.prefix + name;
  }

  @Override
  public String toString() {
    return channel();
  }
}
