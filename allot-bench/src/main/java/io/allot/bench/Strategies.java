package io.allot.bench;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Assigners;
import io.allot.core.assign.Changes;
import io.allot.core.assign.Table;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/** The strategies the benchmark knows: the built-in ones and the two baselines. */
public final class Strategies {
  private Strategies() {}

  /**
   * Built-in strategies that {@link Assigners#byName} accepts besides {@link Assigners#names()} (those not listed
   * there are still benchmarked): the retired bounded {@code rendezvous}, and {@code rendezvous-unbounded}.
   */
  private static final List<String> EXTRA_BUILT_INS = List.of("rendezvous", "rendezvous-unbounded");

  /** Baselines implemented in this module. */
  public static final List<String> BASELINES = List.of(ModuloAssigner.NAME, NaiveRendezvousAssigner.NAME);

  /**
   * Every strategy benchmarked by default: {@link Assigners#names()} (the default first), the other built-ins
   * {@link Assigners#byName} accepts, then the baselines.
   */
  public static List<String> all() {
    List<String> out = new ArrayList<>(Assigners.names());
    for (String n : EXTRA_BUILT_INS) {
      if (!out.contains(n)) {
        out.add(n);
      }
    }
    out.addAll(BASELINES);
    return List.copyOf(out);
  }

  /** Normalises a strategy name the way {@link Assigners#byName} does. */
  public static String normalise(String name) {
    return name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
  }

  /** True if {@link #byName} knows {@code name}. */
  public static boolean known(String name) {
    return all().contains(normalise(name));
  }

  /**
   * The strategy called {@code name}: a baseline or a built-in.
   *
   * @throws IllegalArgumentException naming the unknown strategy and listing the known ones
   */
  public static Assigner byName(String name) {
    String n = normalise(name);
    switch (n) {
      case ModuloAssigner.NAME:
        return new ModuloAssigner();
      case NaiveRendezvousAssigner.NAME:
        return new NaiveRendezvousAssigner();
      default:
        if (!all().contains(n)) {
          throw new IllegalArgumentException(
              "unknown strategy '" + name + "'; choose from " + String.join(", ", all()));
        }
        return Assigners.byName(n);
    }
  }

  /** True if {@code a} has its own {@link Assigner#update} rather than the recompute-all default. */
  public static boolean hasIncrementalUpdate(Assigner a) {
    try {
      return a.getClass()
              .getMethod("update", Table.class, Collection.class, Collection.class, Changes.class)
              .getDeclaringClass()
          != Assigner.class;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }
}
