package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.allot.jobs.v1.DispatcherMessage;
import io.allot.jobs.v1.EndpointMessage;
import io.allot.jobs.v1.JobEndpointGrpc;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, hole 5: numbers an endpoint sends are bounded. Two endpoints announcing a capacity of Integer.MAX_VALUE
 * overflowed the dispatcher's sum of credits and it stopped claiming (jobs stayed todo); a retry_after_ms of a hundred
 * years parked a job on Redis and overflowed toNanos elsewhere. Now such a stream is cancelled and the others go on.
 */
class EndpointBoundsTest {
  private final Closer toClose = new Closer();
  private final MemoryStore store = toClose.add(new MemoryStore());

  @AfterEach
  void closeAll() throws Exception {
    toClose.close();
  }

  /**
   * An endpoint of no language in particular: answers the dispatcher's stream with what {@code answer} makes of each
   * message (null: nothing), and completes {@code ended} with the status its stream ended with.
   */
  private static final class RawEndpoint extends JobEndpointGrpc.JobEndpointImplBase {
    final CompletableFuture<Status> ended = new CompletableFuture<>();
    private final Function<DispatcherMessage, EndpointMessage> answer;

    RawEndpoint(Function<DispatcherMessage, EndpointMessage> answer) {
      this.answer = answer;
    }

    @Override
    public StreamObserver<DispatcherMessage> dispatch(StreamObserver<EndpointMessage> out) {
      return new StreamObserver<>() {
        @Override
        public void onNext(DispatcherMessage m) {
          EndpointMessage a = answer.apply(m);
          if (a != null) {
            out.onNext(a);
          }
        }

        @Override
        public void onError(Throwable t) {
          ended.complete(Status.fromThrowable(t));
        }

        @Override
        public void onCompleted() {
          ended.complete(Status.OK);
          out.onCompleted();
        }
      };
    }
  }

  private String serve(io.grpc.BindableService service) throws Exception {
    Server s = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()).addService(service).build().start();
    toClose.add(() -> s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
    return "127.0.0.1:" + s.getPort();
  }

  private static EndpointMessage readyWith(DispatcherMessage m, int capacity) {
    return m.hasHello() ? Wire.ready("", capacity) : null;
  }

  private void dispatch(JobQueue q, String... endpoints) {
    toClose.add(JobDispatcher.builder(q, EndpointSource.fixed(endpoints)).pollInterval(Duration.ofMillis(10))
        .build().start());
  }

  @Test
  void endpointsAnnouncingAHugeCapacityAreCancelledAndTheOthersGetTheJobs() throws Exception {
    JobQueue q = store.jobQueue("bounds");
    q.enqueue(IntStream.range(0, 20).mapToObj(i -> NewJob.of("j" + i)).toList());
    RawEndpoint huge1 = new RawEndpoint(m -> readyWith(m, Integer.MAX_VALUE));
    RawEndpoint huge2 = new RawEndpoint(m -> readyWith(m, Integer.MAX_VALUE));
    EndpointServer good = new EndpointServer(JobEndpoint.builder(job -> { }).capacity(2).build());
    toClose.add(good);
    dispatch(q, serve(huge1), serve(huge2), good.address());
    await().atMost(Duration.ofSeconds(30)).until(() -> q.stats(0).count(JobStatus.FINISHED) == 20);
    assertThat(huge1.ended.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(huge2.ended.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void aResultAskingForAHundredYearsIsRefusedAndTheJobRunsAgainElsewhere() throws Exception {
    JobQueue q = store.jobQueue("bounds-retry");
    q.enqueue(NewJob.of("a"));
    long hundredYears = Duration.ofDays(36_500).toMillis();
    RawEndpoint parker = new RawEndpoint(m -> m.hasHello() ? Wire.ready("", 1)
        : m.hasJob() ? EndpointMessage.newBuilder().setResult(io.allot.jobs.v1.Result.newBuilder()
            .setKey(m.getJob().getKey()).setToken(m.getJob().getToken()).setError("later")
            .setRetryAfterMs(hundredYears)).build() : null);
    String parkerAddress = serve(parker);
    JobDispatcher d = JobDispatcher.builder(q, EndpointSource.fixed(parkerAddress)).pollInterval(Duration.ofMillis(10))
        .lockTtl(Duration.ofMillis(500)).build().start();
    toClose.add(d);
    assertThat(parker.ended.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    d.close(); // else it claims the job again once its lock runs out, and sends it to the parker again
    // the refused result changed nothing: the job's lock runs out and it is claimable again (not parked for a century)
    await().atMost(Duration.ofSeconds(30)).until(() -> q.claim("another", 1, Duration.ofSeconds(30)).size() == 1);
    assertThat(q.get("a").orElseThrow().lastError()).isEmpty();
  }

  @Test
  void aHandlerCannotAskForMoreThanTheBoundEither() {
    assertThatThrownBy(() -> new JobHandler.RetryAfter("x", Duration.ofDays(36_500)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait").hasMessageContaining("30 days");
    assertThatThrownBy(() -> new JobHandler.RetryAfter("x", Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait");
    assertThat(new JobHandler.RetryAfter("x", JobHandler.RetryAfter.MAX_WAIT).waitBeforeRetry())
        .isEqualTo(Duration.ofDays(30));
    assertThat(List.of(Wire.MAX_CAPACITY)).containsExactly(10_000);
  }
}
