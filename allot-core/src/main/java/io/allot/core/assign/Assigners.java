package io.allot.core.assign;

import java.util.List;
import java.util.Locale;

/**
 * The built-in strategies, by name.
 *
 * <ul>
 *   <li>{@code balanced} (the default): every member within one unit of its weighted share, and
 *       the fewest moves; computed from the table in force (see {@link BalancedAssigner}).
 *   <li>{@code rendezvous-unbounded}: stateless weighted rendezvous hashing, for clients that
 *       compute owners themselves from the member list alone (no balance bound: about {@code 1 +
 *       3/sqrt(N/M)} times the fair share at worst).
 *   <li>{@code seed-ring}: identical to the original distributor.
 * </ul>
 *
 * <p>{@code rendezvous} (rendezvous with loads bounded at 1.25x the share) is still accepted by
 * {@link #byName} for existing configurations but is retired from {@link #names()}: it is neither
 * balanced (max/ideal 1.25 to 1.5 at 2 to 20 units per member, 2.0 at one) nor minimal in movement
 * (its bound displaces units in cascades: 1.15x to 1.33x the optimum on a join at 2 to 20 units per
 * member, and a unit churn moves other units, 5 % of them at N = 20, M = 10; {@code bench assign}),
 * and being computed from the full unit set it is not stateless for clients either.
 */
public final class Assigners {
  private Assigners() {}

  /** The default strategy's name. */
  public static final String DEFAULT = "balanced";

  /** Names accepted by {@link #byName(String)}, default first ({@code rendezvous} is accepted too). */
  public static List<String> names() {
    return List.of("balanced", "rendezvous-unbounded", "seed-ring");
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
