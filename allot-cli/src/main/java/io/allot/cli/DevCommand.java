package io.allot.cli;

import io.allot.core.assign.Assigners;
import io.allot.server.config.GoDuration;
import io.allot.server.dev.DevMode;
import io.allot.server.http.OpsHttpServer;
import io.allot.tasks.service.TaskService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code allot dev}: the whole thing in one process, nothing to install. */
@Command(
    name = "dev",
    description = {
      "Runs a demo in one process: the distributor on the in-memory store, demo members and demo units.",
      "The members are real gRPC servers on loopback ports answering both ping protocols; no external service is "
          + "needed. Prints the table on every change, and every few seconds stops or restarts a member so you can "
          + "watch redistribution."
    })
final class DevCommand implements Callable<Integer> {
  @Option(names = {"-members", "--members"}, paramLabel = "N", defaultValue = "3", description = "Demo members. Default ${DEFAULT-VALUE}.")
  int members;

  @Option(names = {"-units", "--units"}, paramLabel = "N", defaultValue = "20", description = "Demo units. Default ${DEFAULT-VALUE}.")
  int units;

  @Option(names = {"-strategy", "--strategy"}, paramLabel = "STRATEGY", defaultValue = Assigners.DEFAULT, description = "Assignment strategy. Default ${DEFAULT-VALUE}.")
  String strategy;

  @Option(names = {"-poll-interval", "--poll-interval"}, paramLabel = "DURATION", defaultValue = "500ms", description = "Default ${DEFAULT-VALUE}.")
  String poll;

  @Option(names = {"-chaos-every", "--chaos-every"}, paramLabel = "DURATION", defaultValue = "5s", description = "Stop or restart a member this often. Default ${DEFAULT-VALUE}.")
  String chaos;

  @Option(names = {"-duration", "--duration"}, paramLabel = "DURATION", description = "Quit after this long (Go duration); default: run until Ctrl-C.")
  String duration;

  @Option(names = {"-log", "--log"}, paramLabel = "LEVEL", defaultValue = "warn", description = "Log level. Default ${DEFAULT-VALUE}.")
  String log;

  @Option(names = {"-prom-port", "--prom-port"}, paramLabel = "PORT", defaultValue = "9090",
      description = "Port of /metrics, /version, /healthz and the task API /api/v1 (pool " + DevMode.POOL
          + "); 0 picks a free one. Default ${DEFAULT-VALUE}.")
  int promPort;

  @picocli.CommandLine.Mixin ApiOptions apiOptions;

  @Override
  public Integer call() throws Exception {
    Logging.configure(log);
    if (members < 1 || members > 1000) {
      throw new BadInputException("--members must be between 1 and 1000, got " + members);
    }
    if (units < 1) {
      throw new BadInputException("--units must be at least 1, got " + units);
    }
    Assigners.byName(strategy);
    Duration p = GoDuration.parsePositive(poll, "--poll-interval");
    Duration c = GoDuration.parsePositive(chaos, "--chaos-every");
    Duration d = duration == null ? null : GoDuration.parsePositive(duration, "--duration");
    if (promPort < 0 || promPort > 65535) {
      throw new BadInputException("-prom-port: " + promPort + " is not a port");
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    apiOptions.meterRegistry(registry);
    apiOptions.check();
    try (DevMode dev = new DevMode(System.out, members, units, strategy, p, c, registry)) {
      TaskService tasks = TaskService.forPools(dev.store(), DevMode.TABLE, List.of(DevMode.POOL))
          .withUnitsList(DevMode.UNITS);
      try (OpsHttpServer http = new OpsHttpServer(promPort, registry, Main.version(), () -> true, apiOptions.http(tasks));
          ApiOptions.Running grpc = apiOptions.grpc(tasks)) {
        Runtime.getRuntime().addShutdownHook(new Thread(dev::close, "allot-dev-shutdown"));
        System.out.printf("allot dev: task API on http://127.0.0.1:%d/api/v1 (pool %s)%s; %s%n", http.port(),
            DevMode.POOL, grpc.port() == 0 ? "" : ", gRPC on :" + grpc.port(), apiOptions.describeAuth());
        System.out.flush();
        dev.run(d);
      }
    } catch (java.io.UncheckedIOException e) {
      throw new BadInputException("-prom-port " + promPort + ": " + e.getMessage());
    }
    return 0;
  }
}
