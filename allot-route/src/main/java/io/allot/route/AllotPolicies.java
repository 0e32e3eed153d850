package io.allot.route;

import io.allot.core.hash.Hashing;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.NameResolver.ConfigOrError;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * allot's load-balancing policies, each a {@link LoadBalancerProvider} registered by name through
 * {@code META-INF/services} and chosen with the service config, e.g.
 * {@code {"loadBalancingConfig": [{"allot_owner": {"fallback": "consistent_hash"}}]}}. A bad config (unknown field,
 * wrong type, value out of range) is an error naming the policy and the field, which grpc reports when the channel
 * is built (default service config) or the config arrives.
 *
 * <table>
 *   <caption>Policies</caption>
 *   <tr><th>name</th><th>config</th><th>picks</th></tr>
 *   <tr><td>{@code allot_weighted_round_robin}</td><td>none</td><td>smooth weighted round robin by member weight</td></tr>
 *   <tr><td>{@code allot_canary}</td><td>{@code weights} (version to weight), {@code sticky}</td><td>a version by
 *   weight (live weights override the config), then round robin within it; sticky: the key picks version and
 *   member</td></tr>
 *   <tr><td>{@code allot_least_request}</td><td>{@code choiceCount} 2..10 (2), {@code latencyAware} (false)</td>
 *   <td>fewest outstanding calls of d random members, weighed by their latency</td></tr>
 *   <tr><td>{@code allot_consistent_hash}</td><td>none</td><td>weighted rendezvous of the call key</td></tr>
 *   <tr><td>{@code allot_owner}</td><td>{@code fallback}: round_robin (default), weighted_round_robin,
 *   least_request, consistent_hash</td><td>the key's owner from the table, if READY; else the fallback</td></tr>
 * </table>
 */
public final class AllotPolicies {
  private AllotPolicies() {}

  /** The names of every allot policy. */
  public static final List<String> NAMES = List.of("allot_weighted_round_robin", "allot_canary", "allot_least_request",
      "allot_consistent_hash", "allot_owner");

  /** The common part of the providers: name, priority and the mapping of config errors to a status. */
  abstract static class Provider extends LoadBalancerProvider {
    private final String name;

    Provider(String name) {
      this.name = name;
    }

    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public int getPriority() {
      return 5;
    }

    @Override
    public String getPolicyName() {
      return name;
    }

    @Override
    public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> raw) {
      try {
        return ConfigOrError.fromConfig(parse(raw));
      } catch (IllegalArgumentException e) {
        return ConfigOrError.fromError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
      }
    }

    /** The parsed config; throws {@link IllegalArgumentException} naming the bad field. */
    abstract Object parse(Map<String, ?> raw);
  }

  /** A provider of a policy with no config that is one strategy over the READY members. */
  abstract static class StrategyProvider extends Provider {
    private final Pickers.Strategy strategy;

    StrategyProvider(String name, Pickers.Strategy strategy) {
      super(name);
      this.strategy = strategy;
    }

    @Override
    Object parse(Map<String, ?> raw) {
      new PolicyConfig(getPolicyName(), raw, Set.of());
      return Boolean.TRUE;
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return new AllotBalancer<>(helper, getPolicyName(), Boolean.class, true) {
        @Override
        protected SubchannelPicker picker(List<Backend> ready) {
          return strategy.picker(ready);
        }
      };
    }
  }

  // ---------------- allot_weighted_round_robin ----------------

  /** {@code allot_weighted_round_robin}: smooth weighted round robin by member weight (affinity). */
  public static final class WeightedRoundRobinProvider extends StrategyProvider {
    public WeightedRoundRobinProvider() {
      super("allot_weighted_round_robin", Pickers.Strategy.WEIGHTED_ROUND_ROBIN);
    }
  }

  // ---------------- allot_consistent_hash ----------------

  /** {@code allot_consistent_hash}: weighted rendezvous hashing of the call key over the READY members. */
  public static final class ConsistentHashProvider extends StrategyProvider {
    public ConsistentHashProvider() {
      super("allot_consistent_hash", Pickers.Strategy.CONSISTENT_HASH);
    }
  }

  // ---------------- allot_least_request ----------------

  /**
   * The config of {@code allot_least_request}.
   *
   * @param choiceCount  candidates per pick, 2..10 (default 2)
   * @param latencyAware whether outstanding calls are weighed by each candidate's moving average latency (default
   *                     false: plain counts of calls in flight, as the issue and grpc's least_request; see {@link Pickers.LeastRequest})
   */
  record LeastRequestConfig(int choiceCount, boolean latencyAware) {}

  /** {@code allot_least_request}: power-of-d choices on outstanding calls (counts of calls in flight by default; latency-aware on request). */
  public static final class LeastRequestProvider extends Provider {
    public LeastRequestProvider() {
      super("allot_least_request");
    }

    @Override
    Object parse(Map<String, ?> raw) {
      PolicyConfig c = new PolicyConfig(getPolicyName(), raw, Set.of("choiceCount", "latencyAware"));
      return new LeastRequestConfig(c.integer("choiceCount", 2, 2, 10), c.bool("latencyAware", false));
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return new AllotBalancer<>(helper, "allot_least_request", LeastRequestConfig.class, new LeastRequestConfig(2, true)) {
        @Override
        protected SubchannelPicker picker(List<Backend> ready) {
          return new Pickers.LeastRequest(ready, config().choiceCount(), config().latencyAware());
        }
      };
    }
  }

  // ---------------- allot_canary ----------------

  /**
   * The config of {@code allot_canary}.
   *
   * @param weights version to weight (members without a version count as {@value AllotRouting#UNVERSIONED})
   * @param sticky  whether a call's key chooses the version and the member, so one key stays on one version
   */
  record CanaryConfig(Map<String, Integer> weights, boolean sticky) {}

  /**
   * {@code allot_canary}: traffic split by member version. The weights are the pool's live weights when any are set
   * ({@link LiveWeights}), else the config's. A version with weight 0, or without a weight while others have one, gets
   * no calls; a version whose members are all down gives its share to the others in proportion. With no weights at
   * all, or no READY member of a weighted version, calls go round robin over every READY member.
   */
  public static final class CanaryProvider extends Provider {
    public CanaryProvider() {
      super("allot_canary");
    }

    @Override
    Object parse(Map<String, ?> raw) {
      PolicyConfig c = new PolicyConfig(getPolicyName(), raw, Set.of("weights", "sticky"));
      return new CanaryConfig(c.weights("weights"), c.bool("sticky", false));
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return new CanaryBalancer(helper);
    }
  }

  static final class CanaryBalancer extends AllotBalancer<CanaryConfig> {
    CanaryBalancer(Helper helper) {
      super(helper, "allot_canary", CanaryConfig.class, new CanaryConfig(Map.of(), false));
    }

    @Override
    protected SubchannelPicker picker(List<Backend> ready) {
      Map<String, Integer> weights = liveWeights().isEmpty() ? config().weights() : liveWeights();
      Map<String, List<Backend>> byVersion = new LinkedHashMap<>();
      for (Backend b : ready) {
        Integer w = weights.get(b.member.version());
        if (w != null && w > 0) {
          byVersion.computeIfAbsent(b.member.version(), v -> new ArrayList<>()).add(b);
        }
      }
      if (byVersion.isEmpty()) {
        return new Pickers.RoundRobin(ready);
      }
      String[] versions = byVersion.keySet().toArray(String[]::new);
      Arrays.sort(versions);
      int[] w = new int[versions.length];
      Backend[][] members = new Backend[versions.length][];
      for (int i = 0; i < versions.length; i++) {
        w[i] = weights.get(versions[i]);
        members[i] = byVersion.get(versions[i]).toArray(Backend[]::new);
      }
      return new CanaryPicker(versions, w, members, config().sticky());
    }
  }

  /**
   * Splits by version: a precomputed smooth weighted round-robin cycle over the versions (exact shares over every
   * cycle), round robin within a version; sticky with a key: the key's hash picks the version by cumulative weight
   * and its rendezvous winner within it.
   */
  static final class CanaryPicker extends LoadBalancer.SubchannelPicker {
    private final String[] versions;
    private final int[] versionCycle;
    private final Backend[][] members;
    private final Pickers.Rendezvous[] rendezvous;
    private final AtomicInteger[] within;
    private final AtomicInteger step;
    private final long[] cumulative;
    private final boolean sticky;

    CanaryPicker(String[] versions, int[] weights, Backend[][] members, boolean sticky) {
      this.versions = versions;
      this.versionCycle = Pickers.Cycle.cycle(weights);
      this.members = members;
      this.sticky = sticky;
      this.within = new AtomicInteger[versions.length];
      this.rendezvous = new Pickers.Rendezvous[versions.length];
      this.cumulative = new long[versions.length];
      long sum = 0;
      for (int i = 0; i < versions.length; i++) {
        rendezvous[i] = new Pickers.Rendezvous(members[i]);
        within[i] = new AtomicInteger(java.util.concurrent.ThreadLocalRandom.current().nextInt(1 << 20));
        sum += weights[i];
        cumulative[i] = sum;
      }
      this.step = new AtomicInteger(java.util.concurrent.ThreadLocalRandom.current().nextInt(versionCycle.length));
    }

    @Override
    public LoadBalancer.PickResult pickSubchannel(LoadBalancer.PickSubchannelArgs args) {
      if (sticky) {
        String key = Pickers.key(args);
        if (key != null) {
          long h = Pickers.Rendezvous.keyHash(key);
          long total = cumulative[cumulative.length - 1];
          long point = (long) (Hashing.unitInterval(Hashing.mix64(h)) * total);
          int v = 0;
          while (v < cumulative.length - 1 && point >= cumulative[v]) {
            v++;
          }
          return rendezvous[v].pick(h).pick;
        }
      }
      int v = versionCycle[Math.floorMod(step.getAndIncrement(), versionCycle.length)];
      Backend[] m = members[v];
      return m[Math.floorMod(within[v].getAndIncrement(), m.length)].pick;
    }

    @Override
    public String toString() {
      return "CanaryPicker" + Arrays.toString(versions);
    }
  }

  // ---------------- allot_owner ----------------

  /** The config of {@code allot_owner}: the strategy for calls whose owner is unknown or not READY. */
  record OwnerConfig(Pickers.Strategy fallback) {}

  /**
   * {@code allot_owner}: a call with a key goes to the key's owner in the published table when that member is READY;
   * a re-sent call carrying {@link AllotRouting#OWNER_HINT} (a member said who owns the key: the table this client
   * holds is stale) goes to the hinted member when it is READY. Otherwise — no key, a key the table does not list,
   * an owner that is not a live member or not READY — the fallback strategy picks.
   */
  public static final class OwnerProvider extends Provider {
    public OwnerProvider() {
      super("allot_owner");
    }

    @Override
    Object parse(Map<String, ?> raw) {
      PolicyConfig c = new PolicyConfig(getPolicyName(), raw, Set.of("fallback"));
      List<String> names = Arrays.stream(Pickers.Strategy.values()).map(s -> s.configName).toList();
      String f = c.oneOf("fallback", "round_robin", names);
      return new OwnerConfig(Pickers.Strategy.values()[names.indexOf(f)]);
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      String pool = String.valueOf(helper.getAuthority());
      io.micrometer.core.instrument.Counter hits = RouteMeters.owner(pool, "hit");
      io.micrometer.core.instrument.Counter misses = RouteMeters.owner(pool, "miss");
      return new AllotBalancer<>(helper, "allot_owner", OwnerConfig.class,
          new OwnerConfig(Pickers.Strategy.ROUND_ROBIN)) {
        @Override
        protected SubchannelPicker picker(List<Backend> ready) {
          return new OwnerPicker(table(), ready, config().fallback().picker(ready), hits, misses);
        }
      };
    }
  }

  /** Picks the key's owner when READY, else the fallback. */
  static final class OwnerPicker extends LoadBalancer.SubchannelPicker {
    private final RouteTable table;
    private final Map<String, Backend> readyById;
    /** By owner index of the table: the owner's pick, or null when it is not READY. */
    private final LoadBalancer.PickResult[] ownerPicks;
    private final LoadBalancer.SubchannelPicker fallback;
    /** Owner hits and misses (thread-safe counters). */
    private final io.micrometer.core.instrument.Counter hits;
    private final io.micrometer.core.instrument.Counter misses;

    OwnerPicker(RouteTable table, List<Backend> ready, LoadBalancer.SubchannelPicker fallback,
        io.micrometer.core.instrument.Counter hits, io.micrometer.core.instrument.Counter misses) {
      this.hits = hits;
      this.misses = misses;
      this.table = table;
      this.fallback = fallback;
      Map<String, Backend> m = new HashMap<>();
      for (Backend b : ready) {
        m.put(b.member.id(), b);
      }
      this.readyById = m;
      List<String> owners = table.members();
      this.ownerPicks = new LoadBalancer.PickResult[owners.size()];
      for (int i = 0; i < ownerPicks.length; i++) {
        Backend b = m.get(owners.get(i));
        ownerPicks[i] = b == null ? null : b.pick;
      }
    }

    @Override
    public LoadBalancer.PickResult pickSubchannel(LoadBalancer.PickSubchannelArgs args) {
      String hint = args.getCallOptions().getOption(AllotRouting.OWNER_HINT);
      if (hint != null) {
        Backend b = readyById.get(hint);
        if (b != null) {
          hits.increment();
          return b.pick;
        }
      }
      int owner = table.ownerIndex(Pickers.key(args));
      if (owner >= 0 && ownerPicks[owner] != null) {
        hits.increment();
        return ownerPicks[owner];
      }
      misses.increment();
      return fallback.pickSubchannel(args);
    }

    @Override
    public String toString() {
      return "OwnerPicker[epoch=" + table.epoch() + ", ready=" + readyById.keySet() + "]";
    }
  }
}
