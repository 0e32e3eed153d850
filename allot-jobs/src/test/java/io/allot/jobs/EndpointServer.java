package io.allot.jobs;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/** A {@link JobEndpoint} on a gRPC server of its own on a free local port, as an application would run it. */
final class EndpointServer implements AutoCloseable {
  final JobEndpoint endpoint;
  final Server server;

  EndpointServer(JobEndpoint endpoint) {
    this.endpoint = endpoint;
    try {
      this.server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()).addService(endpoint).build()
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String address() {
    return "127.0.0.1:" + server.getPort();
  }

  /** The endpoint process dies: connections cut, handlers interrupted. */
  void kill() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
    endpoint.close();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    endpoint.close();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
