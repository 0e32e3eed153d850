package io.allot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.allot.testkit.TestCa;
import io.allot.tls.PemTls;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Job dispatch over TLS with client certificates: real Netty servers on loopback, certificates made in the test. */
class JobDispatchTlsTest {
  @TempDir
  Path dir;

  @BeforeAll
  static void openssl() {
    assumeThat(TestCa.available()).as("openssl(1) makes the test certificates").isTrue();
  }

  @Test
  void aDispatcherWithAClientCertificatePushesEveryJobAndPlainTextOrNoCertificateIsRefused() throws Exception {
    TestCa ca = TestCa.create(dir);
    TestCa.Issued endpointCert = ca.issue("endpoint");
    TestCa.Issued dispatcherCert = ca.issue("dispatcher");
    PemTls serverTls = PemTls.server(endpointCert.cert(), endpointCert.key(), ca.cert(), PemTls.DEFAULT_RELOAD);
    AtomicInteger ran = new AtomicInteger();
    try (MemoryStore store = new MemoryStore();
        JobEndpoint endpoint = JobEndpoint.builder(t -> ran.incrementAndGet()).capacity(4).endpointId("e").build()) {
      Server server = Grpc.newServerBuilderForPort(0, serverTls.serverCredentials()).addService(endpoint).build()
          .start();
      try {
        String address = "127.0.0.1:" + server.getPort();
        // refused before any job is claimed: plain text, and TLS without the client certificate
        MethodDescriptor<?, ?> method = endpoint.bindService().getMethods().iterator().next().getMethodDescriptor();
        assertThat(callStatus(address, InsecureChannelCredentials.create(), method).getCode())
            .isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(callStatus(address, PemTls.client(ca.cert(), null, null, Duration.ZERO).channelCredentials(),
            method).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(ran.get()).isZero();

        JobQueue queue = store.jobQueue("q");
        queue.enqueue(IntStream.range(0, 50).mapToObj(i -> NewJob.of("t" + i, "x")).toList());
        try (JobDispatcher d = JobDispatcher.builder(queue, EndpointSource.fixed(address))
            .lockTtl(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
            .channelCredentials(PemTls.client(ca.cert(), dispatcherCert.cert(), dispatcherCert.key(),
                PemTls.DEFAULT_RELOAD).channelCredentials())
            .build().start()) {
          await().atMost(Duration.ofSeconds(60)).until(() -> queue.stats(0).count(JobStatus.FINISHED) == 50);
        }
        assertThat(ran.get()).isEqualTo(50);
      } finally {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  /** Opens one call of {@code method} on a new channel and returns how it closed. */
  @SuppressWarnings("unchecked")
  private static Status callStatus(String address, ChannelCredentials credentials, MethodDescriptor<?, ?> method)
      throws Exception {
    ManagedChannel ch = Grpc.newChannelBuilder(address, credentials).build();
    try {
      CompletableFuture<Status> closed = new CompletableFuture<>();
      ClientCall<Object, Object> call = (ClientCall<Object, Object>) ch.newCall(method,
          CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS));
      call.start(new ClientCall.Listener<>() {
        @Override
        public void onClose(Status status, Metadata trailers) {
          closed.complete(status);
        }
      }, new Metadata());
      call.request(1);
      return closed.get(30, TimeUnit.SECONDS);
    } finally {
      ch.shutdownNow();
    }
  }
}
