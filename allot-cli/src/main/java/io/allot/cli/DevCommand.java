package io.allot.cli;

import io.allot.cli.dev.DevNames;
import io.allot.cli.dev.DevPlatform;
import io.allot.core.assign.Assigners;
import io.allot.server.config.GoDuration;
import io.allot.server.http.OpsHttpServer;
import io.allot.server.http.ServerRoutes;
import io.allot.store.Store;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code allot dev}: the whole platform in one process ({@link DevPlatform}), on the in-memory store by default. */
@Command(
    name = "dev",
    sortOptions = false,
    description = {
      "Runs the whole platform in one process: a distributor serving the API (and the dashboard at /ui) on its HTTP "
          + "port; ping-only demo members (the original Go layout); three members built with the worker SDK holding "
          + "units and answering calls; long-running tasks with arguments created through the task API and run by "
          + "members; a job queue fed and worked (some jobs fail and are retried, one is ignored); a routing client "
          + "calling the owners of units through allot:// with live canary weights.",
      "Every few seconds one member is stopped or started again, so you can watch the work move. The first lines "
          + "printed are the dashboard's address and what to look at; then each table as it is published and a "
          + "status line every 5s.",
      "On the in-memory store nothing is needed; --store redis://...|postgresql://... runs the same on a real store, "
          + "its names prefixed by --key-prefix."
    })
final class DevCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @picocli.CommandLine.Mixin StoreOption store = new StoreOption("memory");

  @Option(names = {"--key-prefix", "-key-prefix"}, paramLabel = "PREFIX",
      description = "Put in front of every pool, list, table and queue name, so runs on one store do not collide "
          + "(0-40 of A-Z a-z 0-9 . _ -). Default: none on the in-memory store, '" + DevNames.STORE_PREFIX
          + "' on a real one.")
  String keyPrefix;

  @Option(names = {"--duration", "-duration"}, paramLabel = "DURATION",
      description = "Quit after this long (Go duration: 12s, 5m). Default: run until Ctrl-C.")
  String duration;

  @Option(names = {"--chaos-every", "-chaos-every"}, paramLabel = "DURATION", defaultValue = "5s",
      description = "Stop a member, or start the stopped one again, this often. Default ${DEFAULT-VALUE}.")
  String chaos;

  @Option(names = {"--prom-port", "-prom-port"}, paramLabel = "PORT", defaultValue = "9090",
      description = "HTTP port of the dashboard /ui, the API /api/v1, /metrics, /version and /healthz; 0 picks a "
          + "free one. Default ${DEFAULT-VALUE}.")
  int promPort;

  @Option(names = {"--demo-members", "-demo-members", "-members", "--members"}, paramLabel = "N", defaultValue = "3",
      description = "Ping-only demo members (1-1000). Default ${DEFAULT-VALUE}.")
  int members;

  @Option(names = {"--demo-units", "-demo-units", "-units", "--units"}, paramLabel = "N", defaultValue = "20",
      description = "Units of the demo pool. Default ${DEFAULT-VALUE}.")
  int units;

  @Option(names = {"--strategy", "-strategy"}, paramLabel = "STRATEGY", defaultValue = Assigners.DEFAULT,
      description = "Assignment strategy. Default ${DEFAULT-VALUE}.")
  String strategy;

  @Option(names = {"--poll-interval", "-poll-interval"}, paramLabel = "DURATION", defaultValue = "500ms",
      description = "The distributors' time between two rounds. Default ${DEFAULT-VALUE}.")
  String poll;

  @Option(names = {"--log", "-log"}, paramLabel = "LEVEL", defaultValue = "warn",
      description = "Log level: trace, debug, info, warn, error. Default ${DEFAULT-VALUE}.")
  String log;

  @picocli.CommandLine.Mixin ApiOptions apiOptions;

  @picocli.CommandLine.Mixin TlsOptions tls; // the HTTP and gRPC API ports; the demo members are in-process

  @Override
  public Integer call() throws Exception {
    Logging.configure(log);
    if (members < 1 || members > 1000) {
      throw new BadInputException("--demo-members must be between 1 and 1000, got " + members);
    }
    if (units < 1) {
      throw new BadInputException("--demo-units must be at least 1, got " + units);
    }
    Assigners.byName(strategy);
    Duration p = GoDuration.parsePositive(poll, "--poll-interval");
    Duration c = GoDuration.parsePositive(chaos, "--chaos-every");
    Duration d = duration == null ? null : GoDuration.parsePositive(duration, "--duration");
    if (promPort < 0 || promPort > 65535) {
      throw new BadInputException("--prom-port: " + promPort + " is not a port");
    }
    apiOptions.check();
    tls.server(); // bad TLS files fail here
    String uri = store.uri("allot-dev");
    DevNames names;
    try {
      names = DevNames.withPrefix(keyPrefix != null ? keyPrefix
          : StoreOption.isMemory(uri) ? "" : DevNames.STORE_PREFIX);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
    PrintWriter err = spec.commandLine().getErr();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    DevPlatform.Settings settings = new DevPlatform.Settings(members, units, strategy, p, c);
    // the in-memory store's warning (everything lost at exit) is what dev means: not printed
    try (Store s = StoreOption.isMemory(uri) ? store.open("allot-dev") : store.open("allot-dev", err);
        DevPlatform dev = new DevPlatform(s, names, settings, System.out, registry);
        OpsHttpServer http = ServerCommand.bound("--prom-port " + promPort,
            () -> new OpsHttpServer(promPort, registry, Main.version(), () -> true, apiOptions.http(dev.tasks())
                .withRoutes(ServerRoutes.of(s, dev.tasks(), names.table())), tls.server()));
        ApiOptions.Running grpc = ServerCommand.bound("--api-grpc-port",
            () -> apiOptions.grpc(dev.tasks(), tls.credentials()))) {
      String scheme = tls.server() == null ? "http" : "https";
      Runtime.getRuntime().addShutdownHook(new Thread(dev::close, "allot-dev-shutdown"));
      System.out.printf("dashboard: %s://127.0.0.1:%d/ui%n", scheme, http.port());
      for (String line : dev.whatToLookAt()) {
        System.out.println("  " + line);
      }
      System.out.printf("  task API on %s://127.0.0.1:%d/api/v1 (pools %s)%s; %s; store %s%n", scheme, http.port(),
          String.join(", ", names.pools()), grpc.port() == 0 ? "" : ", gRPC on :" + grpc.port(),
          apiOptions.describeAuth(), s.describe());
      System.out.flush();
      dev.start();
      dev.run(d);
    }
    return 0;
  }
}
