package io.allot.route;

import io.grpc.Attributes;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.Status;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The subchannel bookkeeping every allot policy shares: one subchannel per resolved address list (keyed by the
 * addresses, never by the {@link EquivalentAddressGroup}, whose equality includes attributes that change with every
 * table epoch), kept connected (an IDLE subchannel is asked to connect again), and a new picker over the READY ones
 * whenever a state, the addresses or the resolution attributes change. What a policy adds is {@link #picker}.
 *
 * <p>Client-side health checking is not applied (a member's lease already says whether it is there). Everything
 * except the pickers runs on the channel's synchronization context.
 */
abstract class AllotBalancer<C> extends LoadBalancer {
  protected final Helper helper;
  private final Class<C> configType;
  // confined to the synchronization context
  private C config;
  // confined to the synchronization context
  private final Map<List<SocketAddress>, Backend> backends = new LinkedHashMap<>();
  private RouteTable table = RouteTable.empty(RouteTable.DEFAULT_TABLE_KEY);
  private Map<String, Integer> liveWeights = Map.of();
  private Status lastFailure = Status.UNAVAILABLE.withDescription("no member connected yet");
  private ConnectivityState state;
  private SubchannelPicker current;
  /** Counts the READY pickers' picks ({@link RouteMeters}); thread-safe. */
  private final io.micrometer.core.instrument.Counter picks;

  /**
   * A balancer of {@code policy} whose config is {@code defaultConfig} until a resolution brings one of
   * {@code configType}.
   */
  AllotBalancer(Helper helper, String policy, Class<C> configType, C defaultConfig) {
    this.helper = Objects.requireNonNull(helper, "helper");
    this.picks = RouteMeters.picks(String.valueOf(helper.getAuthority()), policy);
    this.configType = Objects.requireNonNull(configType, "configType");
    this.config = Objects.requireNonNull(defaultConfig, "defaultConfig");
  }

  /** The policy's config as its provider parsed it, from the last resolution that had one (else the default). */
  protected final C config() {
    return config;
  }

  /** A picker over {@code ready} (non-empty, in resolver order: sorted by member id). */
  protected abstract SubchannelPicker picker(List<Backend> ready);

  /** The assignment table of the last resolution. */
  protected final RouteTable table() {
    return table;
  }

  /** The live canary weights of the last resolution (empty: none). */
  protected final Map<String, Integer> liveWeights() {
    return liveWeights;
  }

  @Override
  public boolean canHandleEmptyAddressListFromNameResolution() {
    return true;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    List<EquivalentAddressGroup> groups = resolved.getAddresses();
    if (groups.isEmpty()) { // the pool has no live member: fail calls now rather than route to members that left
      shutdown();
      publish(ConnectivityState.TRANSIENT_FAILURE, new ErrorPicker(Status.UNAVAILABLE.withDescription(
          "allot: no live member in " + target())));
      return Status.OK;
    }
    Object c = resolved.getLoadBalancingPolicyConfig();
    if (configType.isInstance(c)) {
      config = configType.cast(c);
    }
    Attributes attrs = resolved.getAttributes();
    RouteTable t = attrs.get(AllotRouting.TABLE);
    table = t == null ? RouteTable.empty(RouteTable.DEFAULT_TABLE_KEY) : t;
    Map<String, Integer> w = attrs.get(AllotRouting.LIVE_WEIGHTS);
    liveWeights = w == null ? Map.of() : w;

    Set<List<SocketAddress>> seen = new HashSet<>();
    for (EquivalentAddressGroup eag : groups) {
      List<SocketAddress> key = eag.getAddresses();
      if (!seen.add(key)) {
        continue;
      }
      Backend b = backends.get(key);
      Backend.Member member = Backend.Member.of(eag);
      if (b != null) {
        b.member = member;
        continue;
      }
      Subchannel sc = helper.createSubchannel(CreateSubchannelArgs.newBuilder().setAddresses(eag).build());
      Backend nb = new Backend(sc, member);
      backends.put(key, nb);
      sc.start(info -> onState(key, nb, info));
      sc.requestConnection();
    }
    for (Iterator<Map.Entry<List<SocketAddress>, Backend>> it = backends.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<List<SocketAddress>, Backend> e = it.next();
      if (!seen.contains(e.getKey())) {
        it.remove();
        e.getValue().subchannel.shutdown();
      }
    }
    update();
    return Status.OK;
  }

  /** The channel's target, for messages. */
  private String target() {
    try {
      return "'" + helper.getChannelTarget() + "'";
    } catch (UnsupportedOperationException e) {
      return "the pool";
    }
  }

  private void onState(List<SocketAddress> key, Backend b, ConnectivityStateInfo info) {
    if (backends.get(key) != b || info.getState() == ConnectivityState.SHUTDOWN) {
      return;
    }
    b.state = info.getState();
    if (info.getState() == ConnectivityState.TRANSIENT_FAILURE) {
      lastFailure = info.getStatus();
      helper.refreshNameResolution(); // a member may have died before its lease ends: read the pool again
    }
    if (info.getState() == ConnectivityState.IDLE) {
      helper.refreshNameResolution();
      b.subchannel.requestConnection();
    }
    update();
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (backends.isEmpty()) {
      publish(ConnectivityState.TRANSIENT_FAILURE, new ErrorPicker(error));
    }
    // else: keep routing over what was resolved last, as grpc's own policies do
  }

  @Override
  public void requestConnection() {
    for (Backend b : backends.values()) {
      if (b.state == ConnectivityState.IDLE) {
        b.subchannel.requestConnection();
      }
    }
  }

  @Override
  public void shutdown() {
    for (Backend b : backends.values()) {
      b.subchannel.shutdown();
    }
    backends.clear();
  }

  /** Publishes a picker for the current states. */
  protected final void update() {
    List<Backend> ready = new ArrayList<>();
    boolean connecting = false;
    for (Backend b : backends.values()) {
      if (b.state == ConnectivityState.READY) {
        ready.add(b);
      } else if (b.state == ConnectivityState.CONNECTING || b.state == ConnectivityState.IDLE) {
        connecting = true;
      }
    }
    if (!ready.isEmpty()) {
      publish(ConnectivityState.READY, RouteMeters.counted(picker(List.copyOf(ready)), picks));
    } else if (connecting) {
      publish(ConnectivityState.CONNECTING, new SubchannelPicker() {
        @Override
        public PickResult pickSubchannel(PickSubchannelArgs args) {
          return PickResult.withNoResult();
        }
      });
    } else {
      publish(ConnectivityState.TRANSIENT_FAILURE, new ErrorPicker(Status.UNAVAILABLE.withDescription(
          "allot: no member of " + backends.size() + " is READY; last failure: " + lastFailure)));
    }
  }

  private void publish(ConnectivityState s, SubchannelPicker p) {
    state = s;
    current = p;
    helper.updateBalancingState(s, p);
  }

  /** Fails every pick with one status. */
  static final class ErrorPicker extends SubchannelPicker {
    private final PickResult result;

    ErrorPicker(Status status) {
      this.result = PickResult.withError(status);
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      return result;
    }

    @Override
    public String toString() {
      return "ErrorPicker[" + result.getStatus() + "]";
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[state=" + state + ", backends=" + backends.size() + ", picker=" + current
        + "]";
  }
}
