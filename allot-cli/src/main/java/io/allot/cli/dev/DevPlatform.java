package io.allot.cli.dev;

import io.allot.route.TableView;
import io.allot.server.distributor.DistributorServer;
import io.allot.server.distributor.DistributorSettings;
import io.allot.server.ping.Pinger;
import io.allot.store.Store;
import io.allot.tasks.service.TaskService;
import io.allot.tasks.service.TaskServiceException;
import io.allot.tasks.status.TaskStatus;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The whole platform of {@code allot dev} in one process, on one store: distributors (one per units list, all
 * publishing into one table), ping-only demo members (the original Go layout), members built with the worker SDK
 * holding units and answering calls, members running long-running tasks created through the {@link TaskService},
 * a job queue fed and worked, and a routing client calling the owners of units through {@code allot://}. Every
 * {@code chaosEvery} one member is stopped, and at the next step started again, in turn; a status line every
 * {@link #STATUS_EVERY}. The store stays the caller's.
 */
public final class DevPlatform implements AutoCloseable {
  /** How often the status line is printed. */
  public static final Duration STATUS_EVERY = Duration.ofSeconds(5);
  /** Members built with the worker SDK, and their versions (the canary weights split calls by version). */
  static final List<String> WORKER_VERSIONS = List.of("v1", "v1", "v2");
  /** The worker pool's units. */
  static final int WORKER_UNITS = 12;
  /** Members of the task pool, and the cost each carries. */
  static final int TASK_MEMBERS = 2;
  static final int TASK_CAPACITY = 10;
  /** The long-running tasks created at start: name, arguments, cost. */
  static final List<Map.Entry<String, String>> TASKS = List.of(
      Map.entry("ticker.BTC-USD", "{\"venue\":\"coinbase\",\"depth\":10}"),
      Map.entry("ticker.ETH-USD", "{\"venue\":\"kraken\",\"depth\":5}"),
      Map.entry("crawl.example.org", "{\"site\":\"https://example.org\",\"every\":\"30s\"}"),
      Map.entry("tenant.acme", "{\"tenant\":\"acme\",\"plan\":\"gold\"}"));

  /**
   * What the run is made of.
   *
   * @param demoMembers ping-only demo members (1-1000)
   * @param demoUnits   units of the demo pool (at least 1)
   * @param strategy    the assignment strategy's name
   * @param poll        the distributors' poll interval
   * @param chaosEvery  how often a member is stopped or started again
   */
  public record Settings(int demoMembers, int demoUnits, String strategy, Duration poll, Duration chaosEvery) {}

  private final Store store;
  private final DevNames names;
  private final Settings settings;
  private final PrintStream out;
  private final TaskService tasks;
  private final TableView table;
  private final List<PingMember> demo = new ArrayList<>();
  private final List<SdkWorker> workers = new ArrayList<>();
  private final List<TaskMember> taskMembers = new ArrayList<>();
  private final List<DevMember> chaosOrder = new ArrayList<>();
  private final List<DistributorServer> distributors = new ArrayList<>();
  private final JobsDemo jobs;
  private final RouteClient router;
  private final CountDownLatch done = new CountDownLatch(1);
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

  /** Builds the run and seeds its lists in {@code store}; nothing runs before {@link #start()}. */
  public DevPlatform(Store store, DevNames names, Settings settings, PrintStream out, MeterRegistry registry) {
    this.store = store;
    this.names = names;
    this.settings = settings;
    this.out = out;
    this.tasks = TaskService.forPools(store, names.table(), names.pools()).withUnitsLists(Map.of(
        names.demoPool(), names.units(), names.workerPool(), names.workerUnits(), names.taskPool(), names.taskUnits()));
    List<String> demoAddresses = new ArrayList<>();
    for (int i = 0; i < settings.demoMembers(); i++) {
      PingMember m = new PingMember(i % 2 == 1, names.demoPool()); // every other one also answers the legacy ping
      demo.add(m);
      demoAddresses.add(m.address());
    }
    store.seedKeys().replaceList(names.demoPool(), demoAddresses); // an earlier run's members are gone
    store.seedKeys().replaceList(names.units(), numbered("unit-", settings.demoUnits()));
    List<String> shards = numbered("shard-", WORKER_UNITS);
    store.seedKeys().replaceList(names.workerUnits(), shards);
    store.seedKeys().replaceList(names.taskUnits(), List.of());
    this.table = TableView.open(store, names.table());
    for (String v : WORKER_VERSIONS) {
      workers.add(new SdkWorker(store, names, v, table));
    }
    for (int i = 0; i < TASK_MEMBERS; i++) {
      taskMembers.add(new TaskMember(store, names, TASK_CAPACITY));
    }
    for (int i = 0; i < Math.max(demo.size(), workers.size()); i++) {
      if (i < demo.size()) {
        chaosOrder.add(demo.get(i));
      }
      if (i < workers.size()) {
        chaosOrder.add(workers.get(i));
      }
      if (i < taskMembers.size()) {
        chaosOrder.add(taskMembers.get(i));
      }
    }
    TablePrinter printer = new TablePrinter(out,
        pool -> pool.equals(names.demoPool()) ? store.seedKeys().list(pool) : List.of());
    Duration timeout = Duration.ofSeconds(1);
    for (List<String> poolAndUnits : List.of(List.of(names.demoPool(), names.units()),
        List.of(names.workerPool(), names.workerUnits()), List.of(names.taskPool(), names.taskUnits()))) {
      DistributorSettings s = new DistributorSettings(List.of(poolAndUnits.get(0)), poolAndUnits.get(1), names.table(),
          settings.poll(), timeout, 2, false, DistributorSettings.defaultLeaderTtl(settings.poll(), timeout),
          settings.strategy(), Pinger.Mode.AUTO);
      distributors.add(new DistributorServer(store, s, registry, printer::print));
    }
    this.jobs = new JobsDemo(store, names, registry);
    this.router = new RouteClient(store, names, shards);
  }

  private static List<String> numbered(String prefix, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(String.format("%s%02d", prefix, i));
    }
    return out;
  }

  /**
   * The task service over this run's pools, each with its own units list, its views judging the ping-only demo
   * members by the distributors' verdicts (for the API).
   */
  public TaskService tasks() {
    return tasks.withPingVerdicts(this::pingVerdicts);
  }

  /** The verdicts of the distributor that serves {@code pool} (each distributor here serves one pool). */
  private Map<String, Boolean> pingVerdicts(String pool) {
    for (DistributorServer d : distributors) {
      Map<String, Boolean> v = d.pingVerdicts(pool);
      if (!v.isEmpty()) {
        return v;
      }
    }
    return Map.of();
  }

  /** What to look at, one line each, for the first lines of the output. */
  public List<String> whatToLookAt() {
    return List.of(
        "pools: " + names.demoPool() + " (" + demo.size() + " ping-only demo members, " + settings.demoUnits()
            + " units), " + names.workerPool() + " (" + workers.size() + " worker-SDK members, " + WORKER_UNITS
            + " units, versions " + String.join("/", WORKER_VERSIONS) + "), " + names.taskPool() + " ("
            + TASKS.size() + " long-running tasks on " + TASK_MEMBERS + " members)",
        "job queue " + names.queue() + ": fed every " + JobsDemo.FEED_EVERY.toMillis() + "ms; every "
            + JobsDemo.FAIL_ONCE_EVERY + "th job fails once and is retried, one job is ignored (retry it by hand)",
        "routing: a client calls the owners of " + names.workerPool() + "'s units through allot://"
            + names.workerPool() + "; live canary weights " + new java.util.TreeMap<>(RouteClient.WEIGHTS),
        "every " + settings.chaosEvery().toMillis() + "ms a member is stopped or started again: watch its units"
            + " move; a status line every " + STATUS_EVERY.toSeconds() + "s");
  }

  /** Starts the distributors, the members, the tasks, the jobs and the routing client. */
  public void start() {
    // members and tasks first, so the first tables place everything
    workers.forEach(SdkWorker::start);
    taskMembers.forEach(TaskMember::start);
    for (Map.Entry<String, String> t : TASKS) {
      try {
        tasks.create(names.taskPool(), t.getKey(), t.getValue(), 1);
      } catch (TaskServiceException e) {
        out.println("allot dev: task " + t.getKey() + " kept as an earlier run left it: " + e.getMessage());
      }
    }
    distributors.forEach(DistributorServer::start);
    jobs.start();
    router.start(200);
  }

  /** Runs the chaos and the status lines until {@code duration} passes (or forever if null) or {@link #close()}. */
  public void run(Duration duration) throws InterruptedException {
    long now = System.nanoTime();
    long end = duration == null ? Long.MAX_VALUE : now + duration.toNanos();
    long nextChaos = now + settings.chaosEvery().toNanos();
    long nextStatus = now + STATUS_EVERY.toNanos();
    int step = 0;
    while (true) {
      long wake = Math.min(end, Math.min(nextChaos, nextStatus));
      if (done.await(Math.max(0, wake - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        return;
      }
      now = System.nanoTime();
      if (now >= end) {
        return;
      }
      if (now >= nextChaos) {
        DevMember m = chaosOrder.get(step % chaosOrder.size());
        boolean stop = m.running();
        out.printf("%n%s  >>> %s %s%n", LocalTime.now().format(TablePrinter.TIME), stop ? "stopping" : "restarting",
            m.describe());
        out.flush();
        if (stop) {
          m.stop();
        } else {
          m.start();
          step++; // the next step stops the next member
        }
        nextChaos = System.nanoTime() + settings.chaosEvery().toNanos();
      }
      if (now >= nextStatus) {
        out.println(status());
        out.flush();
        nextStatus = now + STATUS_EVERY.toNanos();
      }
    }
  }

  /**
   * One line: workers running and the units they hold, tasks processing, what the jobs did, the routing calls.
   * Starts with {@code status:}; the process test reads it.
   */
  public String status() {
    long running = workers.stream().filter(SdkWorker::running).count();
    int held = workers.stream().mapToInt(SdkWorker::held).sum();
    String taskLine;
    try {
      long processing = tasks.list(names.taskPool(), null).stream()
          .filter(t -> t.status() == TaskStatus.PROCESSING).count();
      taskLine = "tasks " + processing + " of " + TASKS.size() + " Processing";
    } catch (RuntimeException e) {
      taskLine = "tasks unknown (" + e.getMessage() + ")";
    }
    return String.format("%s  status: workers %d of %d running, holding %d units | %s | %s | %s",
        LocalTime.now().format(TablePrinter.TIME), running, workers.size(), held, taskLine, jobs.status(),
        router.status());
  }

  @Override
  public void close() {
    done.countDown();
    if (!closed.compareAndSet(false, true)) {
      return; // the shutdown hook and the caller both close
    }
    router.close();
    jobs.close();
    distributors.forEach(DistributorServer::close); // first: no table moves the units of the members closing now
    List<DevMember> all = new ArrayList<>(workers);
    all.addAll(taskMembers);
    all.parallelStream().forEach(DevMember::close); // each releases its units within its shutdown grace
    demo.forEach(DevMember::close);
    table.close();
  }
}
