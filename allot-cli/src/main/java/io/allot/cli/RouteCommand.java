package io.allot.cli;

import io.allot.route.LiveWeights;
import io.allot.route.OwnerLookup;
import io.allot.route.RouteTable;
import io.allot.store.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code allot route ...}: where the {@code allot_owner} routing policy sends a key; live canary weights. */
@Command(
    name = "route",
    sortOptions = false,
    description = {
      "Prints the member the allot_owner routing policy sends KEY to.",
      "That is the key's owner in the published table when it is a live member of the pool, else the fallback "
          + "(consistent hash of the key over the live members), marked as such. Exit code 1 if the pool has no live "
          + "member.",
      "'route weights' sets the live canary weights of a pool (allot_canary), reaching every client without a "
          + "redeploy."
    },
    subcommands = {RouteCommand.Weights.class})
final class RouteCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin StoreOption store;

  // not required = true: picocli would then demand it before 'route weights' too
  @Option(names = {"-pool", "--pool"}, paramLabel = "POOL",
      description = "The pool (required): its services list key (the original distributor calls it a group), as in allot://POOL.")
  String pool;

  @Option(names = {"-key", "--key"}, paramLabel = "KEY", description = "The unit key of the call.")
  String key;

  @Option(names = {"-distribution-namespace", "--distribution-namespace", "-table", "--table"}, paramLabel = "KEY",
      defaultValue = RouteTable.DEFAULT_TABLE_KEY,
      description = "The table the distributor publishes (its -distribution-namespace; -table is the same). "
          + "Default ${DEFAULT-VALUE}.")
  String table;

  @Override
  public Integer call() {
    if (pool == null) {
      throw new BadInputException("route: --pool is required");
    }
    if (key == null || key.isEmpty()) {
      throw new BadInputException("route: --key is required (or use 'route weights --pool P v1=90 v2=10')");
    }
    try (Store s = store.open("allot-route", spec.commandLine().getErr())) {
      OwnerLookup.Route r = OwnerLookup.route(s, checkPool(pool), table, key);
      if (r.member() == null) {
        spec.commandLine().getErr().println("allot: route: " + r.reason());
        return 1;
      }
      spec.commandLine().getOut().printf("%s -> %s (%s)%n", key, r.member(), r.reason());
      return 0;
    }
  }

  static String checkPool(String pool) {
    try {
      return Store.checkPool(pool);
    } catch (IllegalArgumentException e) {
      throw new BadInputException("--pool: " + e.getMessage());
    }
  }

  @Command(name = "weights", sortOptions = false, description = {
      "Sets the live canary weights of a pool: VERSION=WEIGHT pairs (integers 0..1000000) replace every earlier one; "
          + "--clear removes them (clients go back to the weights of their service config); with neither, prints "
          + "them.",
      "Stored by the store's route weights of the pool (replaced whole, announced on allot:weights:POOL); the allot:// "
          + "resolver of every client watches it."})
  static final class Weights implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin StoreOption store;

    @Option(names = {"-pool", "--pool"}, paramLabel = "POOL", required = true, description = "The pool.")
    String pool;

    @Option(names = {"-clear", "--clear"}, description = "Remove the live weights.")
    boolean clear;

    @Parameters(paramLabel = "VERSION=WEIGHT", arity = "0..*", description = "e.g. v1=90 v2=10")
    List<String> pairs = new ArrayList<>();

    @Override
    public Integer call() {
      checkPool(pool);
      Map<String, Integer> weights = parse(pairs);
      if (clear && !weights.isEmpty()) {
        throw new BadInputException("route weights: give VERSION=WEIGHT pairs or --clear, not both");
      }
      try (Store s = store.open("allot-route-weights", spec.commandLine().getErr())) {
        if (!clear && weights.isEmpty()) {
          Map<String, Integer> now = LiveWeights.read(s, pool);
          spec.commandLine().getOut().println(now.isEmpty() ? "no live weights for pool " + pool
              : "live weights of pool " + pool + ": " + format(now));
          return 0;
        }
        long revision = LiveWeights.set(s, pool, weights);
        spec.commandLine().getOut().println(clear ? "cleared the live weights of pool " + pool + " (revision "
            + revision + ")" : "live weights of pool " + pool + ": " + format(weights) + " (revision " + revision + ")");
        return 0;
      }
    }

    static Map<String, Integer> parse(List<String> pairs) {
      Map<String, Integer> out = new TreeMap<>();
      for (String p : pairs) {
        int eq = p.indexOf('=');
        if (eq <= 0) {
          throw new BadInputException("route weights: '" + p + "' is not VERSION=WEIGHT");
        }
        String v = p.substring(0, eq);
        int w;
        try {
          w = Integer.parseInt(p.substring(eq + 1).trim());
        } catch (NumberFormatException e) {
          throw new BadInputException("route weights: weight of version '" + v + "' must be an integer but was '"
              + p.substring(eq + 1) + "'");
        }
        if (w < 0 || w > LiveWeights.MAX_WEIGHT) {
          throw new BadInputException("route weights: weight of version '" + v + "' must be 0.." + LiveWeights.MAX_WEIGHT
              + " but was " + w);
        }
        if (out.put(v, w) != null) {
          throw new BadInputException("route weights: version '" + v + "' given twice");
        }
      }
      if (!out.isEmpty() && out.values().stream().allMatch(w -> w == 0)) {
        throw new BadInputException("route weights: at least one weight must be above 0 (use --clear to remove them)");
      }
      return out;
    }

    private static String format(Map<String, Integer> w) {
      StringBuilder b = new StringBuilder();
      w.forEach((k, v) -> b.append(b.length() == 0 ? "" : " ").append(k).append('=').append(v));
      return b.toString();
    }
  }
}
