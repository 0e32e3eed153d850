package io.allot.route;

import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.SubchannelPicker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;

/**
 * Routing's meters, {@code allot.route.*} tagged {@code pool} (the target's authority): picks per policy, the
 * {@code allot_owner} policy's owner hits and misses, and the calls {@link OwnerRetryInterceptor} re-routed. The
 * policies are made by gRPC through its registry, so their meters go to Micrometer's global registry
 * ({@link Metrics#globalRegistry}): add the application's with {@code Metrics.addRegistry(registry)}. Stateless
 * (Micrometer returns the same counter for the same name and tags).
 */
final class RouteMeters {
  private static final MeterRegistry REGISTRY = Metrics.globalRegistry;

  private RouteMeters() {}

  /** The picks of {@code policy} on {@code pool}'s channels. */
  static Counter picks(String pool, String policy) {
    return Counter.builder("allot.route.picks").tag("pool", pool).tag("policy", policy)
        .description("calls a policy picked a member for").register(REGISTRY);
  }

  /** {@code allot_owner}'s picks that found the key's owner READY ({@code hit}) or fell back ({@code miss}). */
  static Counter owner(String pool, String result) {
    return Counter.builder("allot.route.owner").tag("pool", pool).tag("result", result)
        .description("allot_owner picks: the key's owner was READY (hit) or the fallback picked (miss)")
        .register(REGISTRY);
  }

  /** Calls sent a second time to the owner a member named. */
  static Counter reroutes(String pool) {
    return Counter.builder("allot.route.reroutes").tag("pool", pool)
        .description("calls refused by a member that does not own their key and sent again to the owner it named")
        .register(REGISTRY);
  }

  /** {@code picker}, counting each pick into {@code picks}. */
  static SubchannelPicker counted(SubchannelPicker picker, Counter picks) {
    return new SubchannelPicker() {
      @Override
      public PickResult pickSubchannel(PickSubchannelArgs args) {
        picks.increment();
        return picker.pickSubchannel(args);
      }

      @Override
      public String toString() {
        return picker.toString();
      }
    };
  }
}
