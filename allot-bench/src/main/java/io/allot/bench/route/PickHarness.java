package io.allot.bench.route;

import io.allot.route.AllotRouting;
import io.allot.route.RouteTable;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ChannelLogger;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolver;
import io.grpc.SynchronizationContext;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A load-balancing policy in isolation, for measuring the cost of one pick: the policy (found by name in grpc's
 * registry, config parsed by its provider) over {@code n} fake subchannels that turn READY when asked to connect,
 * and the picker it publishes. No network, no channel: only {@code pickSubchannel}.
 */
public final class PickHarness {
  private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "pick-harness-timer");
    t.setDaemon(true);
    return t;
  });

  private static final MethodDescriptor.Marshaller<String> NOOP = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(new byte[0]);
    }

    @Override
    public String parse(InputStream stream) {
      return "";
    }
  };
  private static final MethodDescriptor<String, String> METHOD = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("bench.Route/Pick")
      .setRequestMarshaller(NOOP).setResponseMarshaller(NOOP).build();

  private final SynchronizationContext sync = new SynchronizationContext(
      (t, e) -> org.slf4j.LoggerFactory.getLogger(PickHarness.class).error("policy failed on the sync context", e));
  /** The latest picker the policy published; written on {@link #sync}. */
  private volatile LoadBalancer.SubchannelPicker picker;
  private volatile ConnectivityState state;
  private final LoadBalancer lb;
  /** Pick arguments, one per key ({@code k0}, {@code k1}, ...), cycled through by {@link #pick(int)}. */
  private final LoadBalancer.PickSubchannelArgs[] args;

  /**
   * @param policy   the policy name (e.g. {@code round_robin}, {@code allot_owner})
   * @param config   its JSON config
   * @param backends how many backends (member {@code i}: weight {@code 1 + i % 3}, version v2 for the last one,
   *                 v1 else)
   * @param keys     how many distinct call keys (a power of 2); the table makes member {@code k % backends} the owner of key k
   */
  public PickHarness(String policy, Map<String, ?> config, int backends, int keys) {
    if (keys <= 0 || Integer.bitCount(keys) != 1) {
      throw new IllegalArgumentException("keys must be a power of 2 but was " + keys);
    }
    LoadBalancerProvider provider = LoadBalancerRegistry.getDefaultRegistry().getProvider(policy);
    if (provider == null) {
      throw new IllegalArgumentException("no load-balancing policy '" + policy + "' on the class path");
    }
    NameResolver.ConfigOrError parsed = provider.parseLoadBalancingPolicyConfig(config);
    if (parsed.getError() != null) {
      throw new IllegalArgumentException(policy + ": " + parsed.getError());
    }
    List<EquivalentAddressGroup> eags = new ArrayList<>();
    Map<String, String> owners = new HashMap<>();
    for (int i = 0; i < backends; i++) {
      String id = "127.0.0.1:" + (20000 + i);
      eags.add(new EquivalentAddressGroup(new InetSocketAddress("127.0.0.1", 20000 + i), Attributes.newBuilder()
          .set(AllotRouting.MEMBER_ID, id).set(AllotRouting.WEIGHT, 1 + i % 3)
          .set(AllotRouting.VERSION, i == backends - 1 ? "v2" : "v1").build()));
    }
    args = new LoadBalancer.PickSubchannelArgs[keys];
    for (int k = 0; k < keys; k++) {
      owners.put("k" + k, "127.0.0.1:" + (20000 + k % backends));
      args[k] = new Args("k" + k);
    }
    Attributes attrs = Attributes.newBuilder()
        .set(AllotRouting.TABLE, new RouteTable(RouteTable.DEFAULT_TABLE_KEY, 1, owners))
        .set(AllotRouting.LIVE_WEIGHTS, Map.of()).build();
    lb = provider.newLoadBalancer(new FakeHelper());
    sync.execute(() -> lb.acceptResolvedAddresses(LoadBalancer.ResolvedAddresses.newBuilder().setAddresses(eags)
        .setAttributes(attrs).setLoadBalancingPolicyConfig(parsed.getConfig()).build()));
    // lazy policies (ring hash) connect a backend only when a pick needs it: pick until the picker is settled
    for (int i = 0; i < keys * 4 && state != ConnectivityState.READY; i++) {
      picker.pickSubchannel(args[i % keys]);
      sync.drain();
    }
    for (int i = 0; i < keys * 2; i++) {
      picker.pickSubchannel(args[i % keys]);
      sync.drain();
    }
    if (state != ConnectivityState.READY) {
      throw new IllegalStateException(policy + " did not become READY: " + state);
    }
  }

  /** One pick with the arguments of key {@code i % keys}; returns the pick result. */
  public LoadBalancer.PickResult pick(int i) {
    return picker.pickSubchannel(args[i & (args.length - 1)]);
  }

  /** Stops the policy. */
  public void shutdown() {
    sync.execute(lb::shutdown);
  }

  /** The pick arguments of a call with key {@code key}, set both ways a client may: call option and header. */
  private static final class Args extends LoadBalancer.PickSubchannelArgs {
    private final CallOptions options;
    private final Metadata headers = new Metadata();

    Args(String key) {
      options = CallOptions.DEFAULT.withOption(AllotRouting.KEY, key);
      headers.put(AllotRouting.KEY_HEADER, key);
    }

    @Override
    public CallOptions getCallOptions() {
      return options;
    }

    @Override
    public Metadata getHeaders() {
      return headers;
    }

    @Override
    public MethodDescriptor<?, ?> getMethodDescriptor() {
      return METHOD;
    }
  }

  private final class FakeHelper extends LoadBalancer.Helper {
    @Override
    public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
      return new FakeSubchannel(args);
    }

    @Override
    public ManagedChannel createOobChannel(EquivalentAddressGroup eag, String authority) {
      throw new UnsupportedOperationException("no OOB channels in the pick harness");
    }

    @Override
    public void updateBalancingState(ConnectivityState newState, LoadBalancer.SubchannelPicker newPicker) {
      state = newState;
      picker = newPicker;
    }

    @Override
    public SynchronizationContext getSynchronizationContext() {
      return sync;
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return TIMERS;
    }

    @Override
    public String getAuthority() {
      return "bench";
    }

    @Override
    public String getChannelTarget() {
      return "allot://bench";
    }

    @Override
    public ChannelLogger getChannelLogger() {
      return new ChannelLogger() {
        @Override
        public void log(ChannelLogLevel level, String message) {}

        @Override
        public void log(ChannelLogLevel level, String messageFormat, Object... args) {}
      };
    }
  }

  private final class FakeSubchannel extends LoadBalancer.Subchannel {
    private final LoadBalancer.CreateSubchannelArgs args;
    private LoadBalancer.SubchannelStateListener listener;
    private boolean connected;

    FakeSubchannel(LoadBalancer.CreateSubchannelArgs args) {
      this.args = args;
    }

    @Override
    public void start(LoadBalancer.SubchannelStateListener listener) {
      this.listener = listener;
    }

    @Override
    public void shutdown() {}

    @Override
    public void requestConnection() {
      if (connected) {
        return;
      }
      connected = true;
      sync.execute(() -> {
        listener.onSubchannelState(ConnectivityStateInfo.forNonError(ConnectivityState.CONNECTING));
        listener.onSubchannelState(ConnectivityStateInfo.forNonError(ConnectivityState.READY));
        LoadBalancer.SubchannelStateListener health = args.getOption(LoadBalancer.HEALTH_CONSUMER_LISTENER_ARG_KEY);
        if (health != null) {
          health.onSubchannelState(ConnectivityStateInfo.forNonError(ConnectivityState.READY));
        }
      });
    }

    @Override
    public List<EquivalentAddressGroup> getAllAddresses() {
      return args.getAddresses();
    }

    @Override
    public Attributes getAttributes() {
      return args.getAttributes();
    }

    @Override
    public ChannelLogger getChannelLogger() {
      return getHelperLogger();
    }
  }

  private ChannelLogger getHelperLogger() {
    return new FakeHelper().getChannelLogger();
  }
}
