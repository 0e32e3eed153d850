package io.allot.bench;

import io.allot.jobs.JobEndpoint;
import io.allot.jobs.JobHandler;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A job endpoint process of {@code bench failover --jobs}: a {@link JobEndpoint} (default settings, capacity 4) on a
 * gRPC server of its own. Arguments: port, endpoint id, event file. Each job's first attempt runs until it is stopped;
 * later attempts return at once. Every run is two lines of the event file, {@code start <epoch ms> <key> <token>} and
 * {@code stop <epoch ms> <key> <token>}, each written and flushed when it happens (so a SIGKILL leaves a start without
 * a stop). Prints {@code ready} once serving; exits when its standard input closes.
 */
final class JobEndpointProcess {
  private JobEndpointProcess() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
        System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
    int port = Integer.parseInt(args[0]);
    String id = args[1];
    Path events = Path.of(args[2]);
    JobHandler handler = ctx -> {
      line(events, "start", ctx.key(), ctx.token());
      try {
        while (ctx.attempt() == 1 && !ctx.stopRequested()) {
          Thread.sleep(1);
        }
      } finally {
        line(events, "stop", ctx.key(), ctx.token());
      }
    };
    try (JobEndpoint endpoint = JobEndpoint.builder(handler).capacity(4).endpointId(id).build()) {
      Server server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create()).addService(endpoint)
          .build().start();
      System.out.println("ready");
      System.out.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (in.readLine() != null) {
        // runs until the bench closes our standard input (or kills us)
      }
      server.shutdownNow();
    }
  }

  private static synchronized void line(Path events, String kind, String key, long token) {
    try {
      Files.writeString(events, kind + " " + System.currentTimeMillis() + " " + key + " " + token + "\n",
          StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
