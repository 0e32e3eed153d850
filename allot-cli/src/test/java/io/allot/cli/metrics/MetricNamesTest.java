package io.allot.cli.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.allot.jobs.EndpointSource;
import io.allot.jobs.JobDispatcher;
import io.allot.jobs.JobMetrics;
import io.allot.jobs.JobWorker;
import io.allot.route.AllotNameResolverProvider;
import io.allot.route.AllotPolicies;
import io.allot.route.AllotRouting;
import io.allot.route.OwnerRetryInterceptor;
import io.allot.server.distributor.DistributorServer;
import io.allot.server.distributor.DistributorSettings;
import io.allot.server.ping.Pinger;
import io.allot.store.Store;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.allot.store.metrics.StoreMeters;
import io.allot.tasks.TaskMetrics;
import io.allot.tasks.TaskRunner;
import io.allot.tasks.service.TaskService;
import io.allot.worker.Divider;
import io.allot.worker.UnitRunner;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tag;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every metric of every subsystem follows one scheme, and docs/operations.md lists each one: drives the distributor,
 * a worker SDK member, a task runner and the task statuses, a job worker, queue counts and a dispatcher, every
 * routing policy and the store decorator briefly on the memory store, then checks every registered name.
 */
class MetricNamesTest {
  /** The subsystems and the tag every meter of each carries. */
  static final Map<String, String> SUBSYSTEMS = Map.of("distributor", "pool", "worker", "pool", "tasks", "pool",
      "jobs", "queue", "route", "pool", "store", "", "api", "");
  static final Set<String> TAGS = Set.of("pool", "queue", "member", "state", "status", "outcome", "result", "policy",
      "op", "channel", "reason");
  static final Pattern NAME = Pattern.compile("allot\\.([a-z]+)(\\.[a-z]+)+");
  static final Pattern DOC_ROW = Pattern.compile("^\\| `(allot_[a-z_]+)` \\|");

  private final Deque<AutoCloseable> toClose = new ArrayDeque<>();
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @AfterEach
  void close() throws Exception {
    while (!toClose.isEmpty()) {
      toClose.pop().close();
    }
    Metrics.removeRegistry(registry);
  }

  private <T extends AutoCloseable> T later(T c) {
    toClose.push(c);
    return c;
  }

  @Test
  void everyMetricFollowsTheSchemeAndIsDocumented() throws Exception {
    Map<String, String> names = registerEverySubsystem();
    for (Meter m : registry.getMeters()) {
      String name = m.getId().getName();
      Matcher n = NAME.matcher(name);
      assertThat(n.matches()).as("%s: allot.<subsystem>.<what>, lower-case words joined by dots", name).isTrue();
      String subsystem = n.group(1);
      assertThat(SUBSYSTEMS).as("%s: subsystem", name).containsKey(subsystem);
      List<String> tags = m.getId().getTags().stream().map(Tag::getKey).toList();
      assertThat(TAGS).as("%s: tags", name).containsAll(tags);
      if (!SUBSYSTEMS.get(subsystem).isEmpty()) {
        assertThat(tags).as("%s: tags", name).contains(SUBSYSTEMS.get(subsystem));
      }
      assertThat(names.get(name)).as("%s in Prometheus", name).startsWith("allot_" + subsystem + "_");
    }
    assertThat(SUBSYSTEMS.keySet()).allSatisfy(s ->
        assertThat(names.keySet()).as("meters of " + s).anyMatch(k -> k.startsWith("allot." + s + ".")));
    assertThat(documented()).as("the rows of docs/operations.md, Metrics, against the registered meters")
        .isEqualTo(new TreeSet<>(names.values()));
  }

  /** The Prometheus names of the table in docs/operations.md, "## Metrics". */
  static Set<String> documented() throws IOException {
    Set<String> out = new TreeSet<>();
    boolean inSection = false;
    for (String line : Files.readAllLines(docs())) {
      if (line.startsWith("## ")) {
        inSection = line.equals("## Metrics");
      }
      Matcher m = DOC_ROW.matcher(line);
      if (inSection && m.find()) {
        assertThat(out.add(m.group(1))).as("one row per metric: %s", m.group(1)).isTrue();
      }
    }
    return out;
  }

  static Path docs() {
    Path p = Path.of("docs/operations.md");
    return Files.exists(p) ? p : Path.of("..", "docs", "operations.md");
  }

  /** Every subsystem's meters, by Micrometer name: their Prometheus names (without _count/_sum/_bucket). */
  private Map<String, String> registerEverySubsystem() throws Exception {
    Metrics.addRegistry(registry); // routing's meters go to the global registry
    Store store = later(StoreMeters.wrap(new MemoryStore(), registry));
    String pool = "metrics-pool";
    String table = "metrics-table";
    store.seedKeys().replaceList("metrics-units", List.of("u1", "u2", "u3"));
    Duration poll = Duration.ofMillis(200);
    Duration timeout = Duration.ofSeconds(1);
    later(new DistributorServer(store, new DistributorSettings(List.of(pool), "metrics-units", table, poll, timeout,
        2, false, DistributorSettings.defaultLeaderTtl(poll, timeout), "balanced", Pinger.Mode.AUTO), registry, null)
        .start());
    Divider member = Divider.builder(store).pool(pool).distribution(table).host("127.0.0.1").port(0)
        .meterRegistry(registry).build();
    later(UnitRunner.builder(member, u -> u.awaitStop(Duration.ofMinutes(5))).build()).start();
    TaskRunner tasks = later(TaskRunner.builder(Divider.builder(store).pool("metrics-tasks").distribution(table)
        .host("127.0.0.1").port(0).meterRegistry(registry), t -> t.awaitStop(Duration.ofMinutes(5))).build());
    tasks.start();
    later(TaskMetrics.bind(TaskService.forPools(store, table, List.of("metrics-tasks")), "metrics-tasks", registry,
        Duration.ofMillis(100)));
    io.allot.server.auth.Authenticator.builder().token("t", io.allot.server.auth.Role.WRITE, "secret")
        .meterRegistry(registry).build()
        .check(io.allot.server.auth.Authenticator.Channel.GRPC, io.allot.server.auth.Role.WRITE, null, null);
    store.jobQueue("metrics-q").enqueue(NewJob.of("j1"));
    later(JobWorker.builder(store.jobQueue("metrics-q"), j -> { }).meterRegistry(registry).build().start());
    later(JobMetrics.bind(store.jobQueue("metrics-q"), registry, Duration.ofMillis(100), store.clock()::timeMillis));
    later(JobDispatcher.builder(store.jobQueue("metrics-d"), EndpointSource.fixed(List.of("127.0.0.1:1")))
        .meterRegistry(registry).build());
    await().atMost(Duration.ofSeconds(60)).until(() -> member.assigned().size() == 3);
    await().atMost(Duration.ofSeconds(60)).until(() -> registry.get("allot.jobs.attempts").counters().stream()
        .mapToDouble(c -> c.count()).sum() == 1);

    for (String policy : AllotPolicies.NAMES) {
      ManagedChannel ch = ManagedChannelBuilder.forTarget("allot://" + pool + "?table=" + table)
          .setNameResolverArg(AllotNameResolverProvider.STORE, store)
          .defaultServiceConfig(Map.of("loadBalancingConfig", List.of(Map.of(policy, Map.of()))))
          .intercept(new OwnerRetryInterceptor()).usePlaintext().build();
      try {
        HealthGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS).withOption(AllotRouting.KEY, "u1")
            .check(HealthCheckRequest.getDefaultInstance());
      } catch (RuntimeException e) {
        // the policy's meters are registered when it is made; a refused health check does not matter here
      } finally {
        ch.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
    // the meters count what happened, not only exist
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(registry.get("allot.worker.units").tag("pool", pool).gauge().value()).isEqualTo(3);
      assertThat(registry.get("allot.worker.claims").tag("pool", pool).tag("result", "granted").functionCounter()
          .count()).isGreaterThanOrEqualTo(3);
      assertThat(registry.get("allot.worker.lease.renew").tag("pool", pool).timer().count()).isPositive();
      assertThat(registry.get("allot.distributor.units").tag("state", "placed").gauge().value()).isEqualTo(3);
      assertThat(registry.get("allot.distributor.table.epoch").gauge().value()).isPositive();
      assertThat(registry.get("allot.store.round.trip").tag("op", "membership.renew").timer().count()).isPositive();
      assertThat(registry.get("allot.jobs.status").tag("status", "finished").gauge().value()).isEqualTo(1);
      assertThat(registry.get("allot.jobs.wait").tag("queue", "metrics-q").timer().count())
          .as("the claimed job's queue wait").isEqualTo(1);
      assertThat(registry.get("allot.api.refused").tag("channel", "grpc").tag("reason", "missing").counter().count())
          .isEqualTo(1);
      assertThat(registry.get("allot.route.picks").counters().stream().mapToDouble(c -> c.count()).sum())
          .isPositive();
    });
    Map<String, String> out = new TreeMap<>();
    for (Meter m : registry.getMeters()) {
      String prom = m.getId().getConventionName(registry.config().namingConvention());
      boolean counter = m.getId().getType() == Meter.Type.COUNTER;
      out.put(m.getId().getName(), counter ? prom + "_total" : prom); // the exposition format adds _total
    }
    assertThat(out).containsKeys("allot.route.picks", "allot.route.owner", "allot.route.reroutes",
        "allot.worker.handoff.gap", "allot.tasks.status", "allot.store.round.trip", "allot.distributor.rounds");
    return out;
  }
}
