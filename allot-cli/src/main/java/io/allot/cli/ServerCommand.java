package io.allot.cli;

import io.allot.core.assign.Assigners;
import io.allot.server.config.GoDuration;
import io.allot.server.distributor.DistributorServer;
import io.allot.server.distributor.DistributorSettings;
import io.allot.server.http.OpsHttpServer;
import io.allot.server.http.ServerRoutes;
import io.allot.server.ping.Pinger;
import io.allot.store.Store;
import io.allot.tasks.service.TaskService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code allot server}: the distributor. Flags and environment variables are those of the
 * original Go distributor (single or double dash), plus allot's own.
 */
@Command(
    name = "server",
    sortOptions = false,
    description = {
      "Runs the distributor: pings the members of each services list, assigns the work units to the live ones "
          + "and publishes the table in the distribution hash.",
      "Several can run: one leads each pool, the others stand by.",
      "Every flag can also be set by its environment variable (POLL_INTERVAL for -poll-interval, ...); flags win."
    })
final class ServerCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = {"-services-namespaces", "--services-namespaces"}, paramLabel = "KEYS",
      defaultValue = "sys-robots-list,sys-parsers-lists",
      description = "Comma-separated services list keys; each is a pool that divides all the units among its members. Env SERVICES_NAMESPACES (or SERVICES_NAMESPACE). Default ${DEFAULT-VALUE}.")
  String servicesNamespaces;

  @Option(names = {"-workunits-namespace", "--workunits-namespace"}, paramLabel = "KEY", defaultValue = "sys-channels",
      description = "Work-units list key. Default ${DEFAULT-VALUE}.")
  String workunitsNamespace;

  @Option(names = {"-distribution-namespace", "--distribution-namespace"}, paramLabel = "KEY", defaultValue = "sys-matching-table",
      description = "Distribution hash key (member -> \"u1,u2\"). Default ${DEFAULT-VALUE}.")
  String distributionNamespace;

  @Option(names = {"-poll-interval", "--poll-interval"}, paramLabel = "DURATION", defaultValue = "1000ms",
      description = "Time between two rounds (Go duration: 500ms, 2s). Default ${DEFAULT-VALUE}.")
  String pollInterval;

  @Option(names = {"-ping-timeout", "--ping-timeout"}, paramLabel = "DURATION", defaultValue = "1000ms",
      description = "Deadline of one ping. Default ${DEFAULT-VALUE}.")
  String pingTimeout;

  @picocli.CommandLine.Mixin StoreOption store;

  @picocli.CommandLine.Mixin RedisFlags redisFlags;

  @picocli.CommandLine.Mixin ApiOptions apiOptions;

  @picocli.CommandLine.Mixin TlsOptions tls;

  @picocli.CommandLine.Mixin TlsClientOptions tlsClient;

  @Option(names = {"-prom-port", "--prom-port"}, paramLabel = "PORT", defaultValue = "9090",
      description = "Port of /metrics, /version and /healthz; 0 picks a free one. Default ${DEFAULT-VALUE}.")
  int promPort;

  @Option(names = {"-log", "--log"}, paramLabel = "LEVEL", defaultValue = "info",
      description = "Log level: trace, debug, info, warn, error. Default ${DEFAULT-VALUE}.")
  String logLevel;

  @Option(names = {"-strategy", "--strategy"}, paramLabel = "NAME", defaultValue = Assigners.DEFAULT,
      description = "Assignment strategy: balanced (default), rendezvous-unbounded, seed-ring (identical to the original); rendezvous (retired) is still accepted.")
  String strategy;

  @Option(names = {"-task-retention", "--task-retention"}, paramLabel = "DURATION", defaultValue = "1h",
      description = "How long a deleted long-running task is kept (status Deleted) once it stopped everywhere. Default"
          + " ${DEFAULT-VALUE}.")
  String taskRetention;

  @Option(names = {"-ping-protocol", "--ping-protocol"}, paramLabel = "PROTOCOL", defaultValue = "auto",
      description = "auto, health or legacy. auto: grpc.health.v1 first, proto.GRPCPinger/Ping when a member does not implement it. Default ${DEFAULT-VALUE}.")
  String pingProtocol;

  @Option(names = {"-down-after", "--down-after"}, paramLabel = "K", defaultValue = "3",
      description = "Consecutive failed pings before a member is marked down. Default ${DEFAULT-VALUE}.")
  int downAfter;

  @Option(names = {"-remove-dead", "--remove-dead"}, arity = "0..1", fallbackValue = "true", defaultValue = "false", paramLabel = "BOOL",
      description = "Remove a down member from its services list and the hash (the original's behaviour; with -down-after 1 exactly).")
  boolean removeDead;

  @Option(names = {"-leader-ttl", "--leader-ttl"}, paramLabel = "DURATION",
      description = "Leadership lease; a standby takes over within it when the leader dies. Default 3 x (poll-interval + ping-timeout), at least 2s.")
  String leaderTtl;

  // accepted for compatibility with the original's command lines; they tune its Go gRPC client only
  @Option(names = {"-ka-time", "--ka-time", "-ka-timeout", "--ka-timeout", "-config-type", "--config-type"}, hidden = true, paramLabel = "V")
  List<String> ignored;

  @Option(names = {"-ka-permit-without-stream", "--ka-permit-without-stream"}, hidden = true, arity = "0..1", fallbackValue = "true")
  String ignoredBool;

  @Override
  public Integer call() throws Exception {
    Logging.configure(logLevel);
    PrintWriter err = spec.commandLine().getErr();
    DistributorSettings settings = settings();
    if (ignored != null || ignoredBool != null) {
      err.println("allot: note: -ka-time, -ka-timeout, -ka-permit-without-stream and -config-type are accepted for compatibility and ignored");
    }
    apiOptions.check();
    tls.server(); // bad TLS files fail here, before anything is opened
    tlsClient.client();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Store s = store.open("allot-distributor", redisFlags, err);
    // the task API serves the pools of this server, reading the table it publishes
    // and refuses a task in a pool fed by its units list (the task would drop the list's units from the table)
    TaskService tasks = TaskService.forPools(s, settings.distributionNamespace(), settings.servicesNamespaces())
        .withUnitsList(settings.workunitsNamespace());
    CountDownLatch stop = new CountDownLatch(1);
    // the views show the members the distributor judges by pings (original-style services) as it judges them; the
    // distributor starts once the APIs listen, and stops after them
    try (s;
        DistributorServer server = new DistributorServer(s, settings, registry, null, tlsClient.credentialsOrNull());
        OpsHttpServer http = bound("-prom-port " + promPort, () -> new OpsHttpServer(promPort, registry,
            Main.version(), () -> ping(s), apiOptions.http(tasks.withPingVerdicts(server::pingVerdicts))
            .withRoutes(ServerRoutes.of(s, tasks.withPingVerdicts(server::pingVerdicts),
                settings.distributionNamespace(), settings.workunitsNamespace())), tls.server()));
        ApiOptions.Running grpc = bound("-api-grpc-port",
            () -> apiOptions.grpc(tasks.withPingVerdicts(server::pingVerdicts), tls.credentials()))) {
      server.start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        server.close(); // releases leadership so a standby takes over at once
        stop.countDown();
      }, "allot-shutdown"));
      org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger("io.allot.server");
      log.info("metrics on :{}/metrics", http.port());
      log.info("ports: {}; pings to members: {}", tls.describe(), tlsClient.describe());
      log.info("task API on :{}/api/v1 (OpenAPI: /api/v1/openapi.json){}; {}", http.port(),
          grpc.port() == 0 ? "" : ", gRPC allot.tasks.v1.Tasks on :" + grpc.port(), apiOptions.describeAuth());
      stop.await();
    }
    return 0;
  }

  /**
   * Opens a listening server; a port it cannot bind (in use, not allowed) is bad input naming the flag, in one line
   * with exit 2, not a stack trace. The resources opened before it are closed by the caller's try.
   */
  static <T> T bound(String flag, java.util.function.Supplier<T> open) {
    try {
      return open.get();
    } catch (java.io.UncheckedIOException e) {
      throw new BadInputException(flag + ": " + e.getMessage());
    }
  }

  private static boolean ping(Store s) {
    try {
      s.clock().timeMillis();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  DistributorSettings settings() {
    Duration poll = GoDuration.parsePositive(pollInterval, "-poll-interval");
    Duration timeout = GoDuration.parsePositive(pingTimeout, "-ping-timeout");
    Duration ttl = leaderTtl == null || leaderTtl.isBlank()
        ? DistributorSettings.defaultLeaderTtl(poll, timeout)
        : GoDuration.parsePositive(leaderTtl, "-leader-ttl");
    Assigners.byName(strategy); // fail early on an unknown name
    if (promPort < 0 || promPort > 65535) {
      throw new BadInputException("-prom-port: " + promPort + " is not a port");
    }
    List<String> pools = Arrays.stream(servicesNamespaces.split(",")).map(String::trim).toList();
    return new DistributorSettings(pools, workunitsNamespace.trim(), distributionNamespace.trim(), poll, timeout, downAfter,
        removeDead, ttl, strategy, Pinger.Mode.parse(pingProtocol), GoDuration.parse(taskRetention, "-task-retention"));
  }

}
