package io.allot.bench.jmh;

import io.allot.bench.route.PickHarness;
import io.allot.bench.route.RouteBench;
import io.grpc.LoadBalancer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one pick ({@code SubchannelPicker.pickSubchannel}) of each routing policy over READY backends, each in
 * a JVM of its own (no profile pollution between policies): allot's policies against grpc's {@code round_robin} and
 * the xds policies ({@link PickHarness}; 1024 call keys, cycled). Run: {@code bin/allot bench jmh RoutePickJmh -f 1
 * -wi 3 -w 1 -i 5 -r 1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-DGRPC_EXPERIMENTAL_RING_HASH_SET_REQUEST_HASH_KEY=true"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RoutePickJmh {

  @Param({"round_robin", "allot_weighted_round_robin", "allot_canary", "allot_canary_sticky", "allot_least_request",
      "allot_consistent_hash", "allot_owner", "weighted_round_robin", "least_request_experimental",
      "ring_hash_experimental"})
  public String policy;

  @Param({"5", "50"})
  public int backends;

  private PickHarness harness;
  private int i;

  @Setup
  public void setup() {
    String label = policy.replace("_sticky", " sticky");
    Map<String, ?> config = RouteBench.pickPolicies().get(label);
    harness = new PickHarness(policy.replace("_sticky", ""), config, backends, 1024);
  }

  @TearDown
  public void tearDown() {
    harness.shutdown();
  }

  @Benchmark
  public LoadBalancer.PickResult pick() {
    return harness.pick(i++);
  }
}
