package io.allot.core.assign;

import java.util.List;
import java.util.Locale;

/** The built-in strategies, by name. */
public final class Assigners {
  private Assigners() {}

  /** The default strategy's name. */
  public static final String DEFAULT = "rendezvous";

  /** Names accepted by {@link #byName(String)}, default first. */
  public static List<String> names() {
    return List.of("rendezvous", "balanced", "seed-ring");
  }

  /**
   * The strategy called {@code name} with its default settings.
   *
   * @throws IllegalArgumentException naming the unknown strategy and listing the known ones
   */
  public static Assigner byName(String name) {
    String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
    switch (n) {
      case "rendezvous":
        return RendezvousAssigner.withDefaults();
      case "rendezvous-unbounded":
        return RendezvousAssigner.unbounded();
      case "balanced":
        return new BalancedAssigner();
      case "seed-ring":
        return new SeedRingAssigner();
      default:
        throw new IllegalArgumentException(
            "unknown strategy '" + name + "'; choose one of " + String.join(", ", names()));
    }
  }
}
