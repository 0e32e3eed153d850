package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.jobs.v1.DispatcherMessage;
import io.allot.jobs.v1.EndpointMessage;
import io.allot.jobs.v1.Heartbeat;
import io.allot.jobs.v1.Hello;
import io.allot.jobs.v1.Job;
import io.allot.jobs.v1.JobEndpointGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The endpoint's half of the deadline ({@code jobs.proto}, "Deadline"), driven by a dispatcher written against the
 * .proto alone: a stream that hears no Heartbeat by its deadline has its handlers stopped, sends no result and is
 * closed; Heartbeats keep it; a dispatcher that gives no deadline (older than Heartbeat) gets none.
 */
class EndpointDeadlineTest {
  private final Closer toClose = new Closer();
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final List<EndpointMessage> received = new CopyOnWriteArrayList<>();
  private final AtomicReference<Throwable> closedWith = new AtomicReference<>();

  @AfterEach
  void closeAll() throws Exception {
    toClose.close();
  }

  /** An endpoint whose handler runs until it is stopped, and a raw stream to it. */
  private StreamObserver<DispatcherMessage> connect() {
    EndpointServer e = toClose.add(new EndpointServer(JobEndpoint.builder(ctx -> {
      running.set(true);
      try {
        while (!ctx.stopRequested()) {
          Thread.sleep(2);
        }
      } finally {
        stopped.set(true);
      }
    }).capacity(1).build()));
    ManagedChannel ch = Grpc.newChannelBuilder(e.address(), InsecureChannelCredentials.create()).build();
    toClose.add(() -> ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
    StreamObserver<DispatcherMessage> out = JobEndpointGrpc.newStub(ch).dispatch(new StreamObserver<>() {
      @Override
      public void onNext(EndpointMessage m) {
        received.add(m);
      }

      @Override
      public void onError(Throwable t) {
        closedWith.set(t);
      }

      @Override
      public void onCompleted() {
        closedWith.set(new IllegalStateException("completed"));
      }
    });
    out.onNext(DispatcherMessage.newBuilder().setHello(Hello.newBuilder().setDispatcher("raw").setQueue("q")
        .setHeartbeatMs(60_000)).build());
    return out;
  }

  private static DispatcherMessage heartbeat(long stopAfterMs) {
    return DispatcherMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder().setStopAfterMs(stopAfterMs)).build();
  }

  private static DispatcherMessage job(long stopAfterMs) {
    return DispatcherMessage.newBuilder().setJob(Job.newBuilder().setKey("k").setToken(7).setAttempt(1)
        .setMaxAttempts(3).setLockTtlMs(1000).setStopAfterMs(stopAfterMs)).build();
  }

  @Test
  void aStreamThatHearsNothingByItsDeadlineStopsItsHandlersSendsNoResultAndIsClosed() {
    StreamObserver<DispatcherMessage> out = connect();
    out.onNext(heartbeat(60_000));
    await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty()); // Ready
    out.onNext(job(200)); // a job brings the deadline nearer; then the dispatcher falls silent
    await().atMost(Duration.ofSeconds(10)).untilTrue(stopped);
    await().atMost(Duration.ofSeconds(10)).until(() -> closedWith.get() != null);
    assertThat(Status.fromThrowable(closedWith.get()).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(Status.fromThrowable(closedWith.get()).getDescription()).contains("deadline");
    assertThat(received).noneMatch(EndpointMessage::hasResult);
  }

  @Test
  void heartbeatsKeepTheHandlersRunningAndTheirEndStopsThem() {
    StreamObserver<DispatcherMessage> out = connect();
    ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();
    toClose.add(beats::shutdownNow);
    await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
    out.onNext(job(300));
    java.util.concurrent.ScheduledFuture<?> f = beats.scheduleAtFixedRate(() -> {
      synchronized (out) {
        out.onNext(heartbeat(300));
      }
    }, 0, 20, TimeUnit.MILLISECONDS);
    await().atMost(Duration.ofSeconds(10)).untilTrue(running);
    // four deadlines long: each Heartbeat moved it on
    await().during(Duration.ofMillis(1200)).atMost(Duration.ofSeconds(10)).until(() -> !stopped.get());
    f.cancel(false);
    await().atMost(Duration.ofSeconds(10)).untilTrue(stopped);
  }

  @Test
  void aDispatcherThatGivesNoDeadlineGetsNone() {
    StreamObserver<DispatcherMessage> out = connect(); // no Heartbeat, stop_after_ms 0: an older dispatcher
    await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
    out.onNext(job(0));
    await().atMost(Duration.ofSeconds(10)).untilTrue(running);
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10)).until(() -> !stopped.get());
    assertThat(closedWith.get()).isNull();
  }
}
