package io.allot.store.spi;

import io.allot.store.Leadership;
import io.allot.store.Notifications;
import io.allot.store.Safety;
import io.allot.store.SeedKeys;
import io.allot.store.Store;
import io.allot.store.StoreClock;
import io.allot.store.Tables;
import java.util.Objects;

/**
 * For store implementations: a {@link Store} whose store-scoped roles and safety settings are made once, when it
 * connects, and handed out as they are. What a store adds is its pool- and queue-scoped views, {@link #describe()}
 * and {@link #close()}. Immutable here; a subclass says what guards its own state.
 */
public abstract class AbstractStore implements Store {
  private final Safety safety;
  private final StoreClock clock;
  private final Leadership leadership;
  private final Tables tables;
  private final Notifications notifications;
  private final SeedKeys seedKeys;

  /** A store handing out these roles (each thread-safe and valid until the store is closed). */
  protected AbstractStore(Safety safety, StoreClock clock, Leadership leadership, Tables tables,
      Notifications notifications, SeedKeys seedKeys) {
    this.safety = Objects.requireNonNull(safety, "safety");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.leadership = Objects.requireNonNull(leadership, "leadership");
    this.tables = Objects.requireNonNull(tables, "tables");
    this.notifications = Objects.requireNonNull(notifications, "notifications");
    this.seedKeys = Objects.requireNonNull(seedKeys, "seedKeys");
  }

  @Override
  public final Safety safety() {
    return safety;
  }

  @Override
  public final StoreClock clock() {
    return clock;
  }

  @Override
  public final Leadership leadership() {
    return leadership;
  }

  @Override
  public final Tables tables() {
    return tables;
  }

  @Override
  public final Notifications notifications() {
    return notifications;
  }

  @Override
  public final SeedKeys seedKeys() {
    return seedKeys;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + describe() + "]";
  }
}
