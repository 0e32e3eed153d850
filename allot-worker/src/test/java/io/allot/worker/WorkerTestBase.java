package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Empty;
import io.allot.ping.LegacyPing;
import io.allot.store.Store;
import io.allot.store.memory.MemoryStore;
import io.allot.testkit.FakeDistributor;
import io.allot.testkit.FaultyStore;
import io.allot.testkit.overlap.OwnershipLog;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

abstract class WorkerTestBase {
  static final String P = "pool-a";
  static final String H = "table-h";

  /** Store clock offset: advancing it makes store time jump (leases expire early in store time). */
  final AtomicLong storeClockOffset = new AtomicLong();
  MemoryStore mem;
  FakeDistributor table;
  OwnershipLog intervals;
  ScheduledExecutorService delayer;
  final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void setUpBase() {
    mem = new MemoryStore(() -> System.nanoTime() + storeClockOffset.get());
    table = new FakeDistributor(mem, H, P);
    intervals = new OwnershipLog();
    delayer = Executors.newScheduledThreadPool(2);
  }

  @AfterEach
  void tearDownBase() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    delayer.shutdownNow();
    mem.close();
  }

  static ConditionFactory await() {
    return Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10));
  }

  /**
   * Waits until {@code counter} reaches {@code n}, then asserts that it is exactly {@code n}. For the divider's stats
   * counters, which are raised just after the state change a test waits for (a release after the unit left
   * {@code assigned()}, a registration after the session was set): read once right after such a wait, they race.
   */
  static void assertCountReaches(String what, LongSupplier counter, long n) {
    await().until(() -> counter.getAsLong() >= n);
    assertThat(counter.getAsLong()).as(what).isEqualTo(n);
  }

  /**
   * The lease timings for a member over {@code store}. Short (1 s, fenced 0.3 s early) only over a
   * {@link FaultyStore}, which the test may break, so that the fences it causes come fast. Every other member has
   * 3 s (fenced 0.9 s early; the memory store's lost-state guard): under the 1 s lease, on a loaded 2-core machine
   * (load ~15), a member the test had not touched yet missed its renewals for 726 ms and fenced itself (issue 23), as
   * one in {@link UnitRunnerTest} had before: 1 s was too short a lease for that machine.
   */
  static Divider.Builder leaseFor(Store store, Divider.Builder b) {
    long leaseMs = store instanceof FaultyStore ? 1_000 : 3_000;
    return b.leaseTtl(Duration.ofMillis(leaseMs))
        .renewEvery(Duration.ofMillis(leaseMs * 3 / 20))
        .fenceMargin(Duration.ofMillis(leaseMs * 3 / 10));
  }

  /** Fast but not twitchy timings for tests on a shared 2-core machine (the lease: {@link #leaseFor}). */
  Divider.Builder fast(Store store, UnitListener listener) {
    return leaseFor(store, Divider.builder(store))
        .pool(P)
        .distribution(H)
        .host("127.0.0.1")
        .port(0)
        .syncInterval(Duration.ofMillis(200))
        .shutdownGrace(Duration.ofSeconds(1))
        .listener(listener);
  }

  /** Builds and starts a divider with a recorder attached; closed after the test. */
  Divider started(Divider.Builder b, Recorder r) {
    return started(b.build(), r);
  }

  Divider started(Divider d, Recorder r) {
    r.attach(d);
    d.start();
    closeables.add(d);
    return d;
  }

  /** A started member and its recorder. */
  record M(Divider d, Recorder r) {
    String id() {
      return d.memberId();
    }
  }

  /** A started member over the memory store whose recorder confirms stops at once. */
  M member(String name) {
    return member(name, mem, b -> b, true);
  }

  M member(String name, Store store, java.util.function.UnaryOperator<Divider.Builder> tweak, boolean autoConfirm) {
    Recorder r = new Recorder(name, intervals);
    if (autoConfirm) {
      r.autoConfirm();
    }
    return new M(started(tweak.apply(fast(store, r)), r), r);
  }

  <T extends AutoCloseable> T closeLater(T c) {
    closeables.add(c);
    return c;
  }

  // ---- pings over real gRPC

  ManagedChannel channel(String memberId) {
    int colon = memberId.lastIndexOf(':');
    ManagedChannel ch = NettyChannelBuilder.forAddress(memberId.substring(0, colon), Integer.parseInt(memberId.substring(colon + 1)))
        .usePlaintext()
        .build();
    closeables.add(() -> {
      ch.shutdownNow();
      ch.awaitTermination(2, TimeUnit.SECONDS);
    });
    return ch;
  }

  /**
   * The health status, or null if the call failed (connection refused...). The deadline leaves room for a cold
   * connection on a loaded machine (it took more than 1 s there); a closed port still fails at once.
   */
  static ServingStatus health(ManagedChannel ch) {
    try {
      return HealthGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
          .check(HealthCheckRequest.getDefaultInstance()).getStatus();
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** The legacy ping's status code. */
  static Status.Code legacyPing(ManagedChannel ch) {
    return call(ch, LegacyPing.METHOD);
  }

  /** The status code of one call of an {@code Empty -> Empty} method, with the deadline of {@link #health}. */
  static Status.Code call(ManagedChannel ch, MethodDescriptor<Empty, Empty> method) {
    try {
      ClientCalls.blockingUnaryCall(ch, method, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS),
          Empty.getDefaultInstance());
      return Status.Code.OK;
    } catch (RuntimeException e) {
      return Status.fromThrowable(e).getCode();
    }
  }
}
