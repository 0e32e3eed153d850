package io.allot.cli;

import io.allot.server.config.GoDuration;
import io.allot.store.Store;
import io.allot.store.tasks.TaskRun;
import io.allot.store.tasks.TaskSpecs;
import io.allot.tasks.TaskSpecCache;
import io.allot.worker.Divider;
import io.allot.worker.StopReason;
import io.allot.worker.UnitListener;
import io.allot.worker.UnitStart;
import io.allot.worker.UnitStop;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code allot worker}: a reference worker built on the {@link Divider}. It "runs" the units it owns (it only records
 * them), prints one line per event and appends the same lines to {@code --events FILE}:
 *
 * <pre>
 * &lt;epoch-millis&gt; start &lt;unit&gt; &lt;token&gt;
 * &lt;epoch-millis&gt; stop &lt;unit&gt;          (written once the unit has stopped, before it is released)
 * &lt;epoch-millis&gt; lease-lost             (the time is when the lease stopped being reliable)
 * </pre>
 *
 * Commands on standard input: {@code affinity N}, {@code alter D}, {@code release UNIT}, {@code flush},
 * {@code quit}.
 */
@Command(
    name = "worker",
    sortOptions = false,
    description = {
      "Runs a reference worker: joins a pool as HOST:PORT, answers the distributor's pings and runs the units it owns.",
      "It registers HOST:PORT in the services list (the pool), claims the units the distribution hash gives it and "
          + "prints one line per event:",
      "  <epoch-millis> start <unit> <token> | <epoch-millis> stop <unit> | <epoch-millis> lease-lost",
      "Standard input takes commands: affinity N | alter DELTA | release UNIT | flush | quit."
    })
final class WorkerCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = {"-pool", "--pool"}, paramLabel = "KEY", required = true,
      description = "The services list (pool) this worker joins, one of the server's -services-namespaces.")
  String pool;

  @Option(names = {"-port", "--port"}, paramLabel = "PORT", required = true,
      description = "gRPC port for the pings (0 picks a free one); the member id is HOST:PORT.")
  int port;

  @Option(names = {"-host", "--host"}, paramLabel = "HOST",
      description = "Host the distributor reaches this worker on, the first part of the member id. Default: an address"
          + " other hosts can reach (the worker SDK's choice: a non-loopback interface's address); give 127.0.0.1 to"
          + " stay on this machine.")
  String host;

  @Option(names = {"-distribution-namespace", "--distribution-namespace"}, paramLabel = "KEY", defaultValue = "sys-matching-table",
      description = "Distribution hash key, as the server's. Default ${DEFAULT-VALUE}.")
  String distributionNamespace;

  @Mixin StoreOption storeOption;

  @Mixin TlsOptions tls;

  @Option(names = {"-events", "--events"}, paramLabel = "FILE", description = "Also append every event line to FILE.")
  Path events;

  @Option(names = {"-affinity", "--affinity"}, paramLabel = "N", defaultValue = "1",
      description = "Initial affinity (weight); 0 = no units. Default ${DEFAULT-VALUE}.")
  int affinity;

  @Option(names = {"-capacity", "--capacity"}, paramLabel = "N", defaultValue = "0",
      description = "Most units owned at once (for long-running tasks: the most task cost); 0 = no limit; auto ="
          + " min(CPUs x 100, max heap MiB / 8). Default ${DEFAULT-VALUE}.")
  String capacityText;
  int capacity;

  @Option(names = {"-member-version", "--member-version"}, paramLabel = "V",
      description = "Software version published with the member (attribute version; routing policies read it).")
  String version;

  @Option(names = {"-zone", "--zone"}, paramLabel = "Z", description = "Zone published with the member (attribute zone).")
  String zone;

  @Option(names = {"-label", "--label"}, paramLabel = "K=V",
      description = "An attribute published with the member; repeatable. Names: A-Z a-z 0-9 . _ - (at most 64).")
  Map<String, String> labels = new LinkedHashMap<>();

  @Option(names = {"-lease-ttl", "--lease-ttl"}, paramLabel = "DURATION", defaultValue = "1000ms",
      description = "Member lease. Default ${DEFAULT-VALUE}.")
  String leaseTtl;

  @Option(names = {"-renew-every", "--renew-every"}, paramLabel = "DURATION", defaultValue = "100ms",
      description = "Lease renewal period. Default ${DEFAULT-VALUE}.")
  String renewEvery;

  @Option(names = {"-fence-margin", "--fence-margin"}, paramLabel = "DURATION", defaultValue = "200ms",
      description = "Self-fence this long before the lease could expire. Default ${DEFAULT-VALUE}.")
  String fenceMargin;

  @Option(names = {"-sync-interval", "--sync-interval"}, paramLabel = "DURATION", defaultValue = "500ms",
      description = "Full reconciliation period. Default ${DEFAULT-VALUE}.")
  String syncInterval;

  @Option(names = {"-max-concurrent-moves", "--max-concurrent-moves"}, paramLabel = "N", defaultValue = "32",
      description = "Cap on units stopping (being handed over) at once. Default ${DEFAULT-VALUE}.")
  int maxConcurrentMoves;

  @Option(names = {"-claim-batch", "--claim-batch"}, paramLabel = "N", defaultValue = "64",
      description = "Units claimed per round, in one store round trip. Default ${DEFAULT-VALUE}.")
  int claimBatch;

  @Option(names = {"-stop-delay", "--stop-delay"}, paramLabel = "DURATION", defaultValue = "0ms",
      description = "Pretend stopping a unit takes this long (to watch paced handoffs). Default ${DEFAULT-VALUE}.")
  String stopDelay;

  @Option(names = {"-log", "--log"}, paramLabel = "LEVEL", defaultValue = "info",
      description = "Log level (logs go to standard error). Default ${DEFAULT-VALUE}.")
  String logLevel;

  @Override
  public Integer call() throws Exception {
    Logging.configure(logLevel);
    if (pool == null || pool.isBlank()) {
      throw new BadInputException("-pool: empty");
    }
    if (port < 0 || port > 65535) {
      throw new BadInputException("-port: " + port + " is not a port");
    }
    if ("auto".equalsIgnoreCase(capacityText.trim())) {
      capacity = io.allot.tasks.TaskCapacity.fromResources();
    } else {
      try {
        capacity = Integer.parseInt(capacityText.trim());
      } catch (NumberFormatException e) {
        throw new BadInputException("-capacity: '" + capacityText + "' is neither a number nor auto");
      }
    }
    if (capacity < 0) {
      throw new BadInputException("-capacity: must be >= 0, got " + capacity);
    }
    if (affinity < 0) {
      throw new BadInputException("-affinity: must be >= 0, got " + affinity);
    }
    boolean pingsOverTls = tls.server() != null; // bad TLS files fail here, before the store is opened
    String clientName = "allot-worker-" + (host == null ? "" : host + ":") + port;
    if (StoreOption.isMemory(storeOption.uri(clientName))) {
      throw new BadInputException("-store memory: a worker must share its store with the distributor; use redis://..."
          + " or postgresql://... (bin/allot dev runs everything in one process on the in-memory store)");
    }
    Duration delay = GoDuration.parse(stopDelay, "-stop-delay");
    EventLog log = new EventLog(spec.commandLine().getOut(), events);
    Store store = storeOption.open(clientName, spec.commandLine().getErr());
    ExecutorService stopper = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "allot-worker-stopper");
      t.setDaemon(true);
      return t;
    });
    // task start reports on a thread of their own: thousands of them after a failover must not hold up the stop
    // confirmations (and so the handoffs) queued on the stopper
    ExecutorService reporter = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "allot-worker-task-reports");
      t.setDaemon(true);
      return t;
    });
    Divider.Builder b = Divider.builder(store)
        .pool(pool.trim())
        .distribution(distributionNamespace.trim())
        .affinity(affinity)
        .leaseTtl(GoDuration.parsePositive(leaseTtl, "-lease-ttl"))
        .renewEvery(GoDuration.parsePositive(renewEvery, "-renew-every"))
        .fenceMargin(GoDuration.parse(fenceMargin, "-fence-margin"))
        .syncInterval(GoDuration.parsePositive(syncInterval, "-sync-interval"))
        .maxConcurrentMoves(maxConcurrentMoves)
        .claimBatch(claimBatch);
    if (host != null) {
      b.host(host.trim()); // else the SDK's default: an address other hosts can reach
    }
    if (pingsOverTls) {
      b.pingsOnAppServer(port); // the pings on a TLS server of this command's own, started below
    } else {
      b.port(port);
    }
    if (capacity > 0) {
      b.capacity(capacity);
    }
    labels.forEach(b::attribute);
    if (version != null) {
      b.version(version);
    }
    if (zone != null) {
      b.zone(zone);
    }
    // long-running tasks: when the pool has task specs, capacity counts their costs and every start is recorded
    TaskSpecCache tasks = new TaskSpecCache(store, pool.trim(), Duration.ofSeconds(5));
    b.unitCost(tasks::cost);
    Divider divider;
    try {
      divider = b.build();
    } catch (IllegalArgumentException e) {
      tasks.close();
      store.close();
      throw new BadInputException(e.getMessage());
    }
    TaskSpecs specs = store.taskSpecs(pool.trim());
    Map<String, Long> running = new HashMap<>(); // unit -> token of its run; guarded by log
    divider.addListener(new UnitListener() {
      @Override
      public void onStart(UnitStart s) {
        long t = System.currentTimeMillis(); // taken first: a pause after this line cannot make the record lie
        if (t >= divider.leaseDeadlineMillis()) {
          return; // the lease ran out meanwhile (a pause): do not start; the LEASE_LOST stop follows
        }
        synchronized (log) {
          running.put(s.unit(), s.token());
          log.line(t, "start " + s.unit() + " " + s.token());
        }
        if (tasks.specPool()) {
          reporter.execute(() -> recordStart(s.unit(), s.token()));
        }
      }

      /** Records the start of task {@code unit} (its status becomes Processing) if this run still holds it. */
      private void recordStart(String unit, long token) {
        synchronized (log) {
          if (!Long.valueOf(token).equals(running.get(unit))) {
            return;
          }
        }
        try {
          tasks.fresh(unit).filter(t -> !t.deleted()).ifPresent(
              t -> specs.started(unit, new TaskRun(divider.memberId(), token, t.revision(), 0)));
        } catch (RuntimeException e) {
          org.slf4j.LoggerFactory.getLogger("io.allot.worker").warn("task {}: recording its start failed: {}", unit,
              e.toString());
        }
      }

      @Override
      public void onStop(UnitStop s) {
        if (s.reason() == StopReason.LEASE_LOST) {
          return; // the lease-lost line ends every unit at the fence time
        }
        // REASSIGNED, SHUTDOWN, and RELEASED after the release command: stop, then confirm that very run
        stopper.execute(() -> {
          sleep(delay);
          if (stopped(s.unit(), s.token())) {
            divider.confirmStop(s.unit(), s.token()); // after the stop line: only then may another member start it
          }
        });
      }

      @Override
      public void onLeaseLost(String reason) {
        synchronized (log) {
          running.clear();
          log.line(divider.lastFencedAtMillis(), "lease-lost");
        }
      }

      /** Writes the stop line if the run with {@code token} is the one running; true if it was. */
      private boolean stopped(String unit, long token) {
        long t = stopTime(divider);
        synchronized (log) {
          if (running.remove(unit, token)) {
            log.line(t, "stop " + unit);
            return true;
          }
          return false;
        }
      }
    });
    tasks.onChange(t -> {
      Long token;
      synchronized (log) {
        token = running.get(t.name());
      }
      TaskRun run = t.run();
      if (token != null && !t.deleted() && run != null && run.token() == token && run.revision() < t.revision()) {
        // the reference worker's "restart" with the new arguments: nothing runs, so the start is recorded again
        org.slf4j.LoggerFactory.getLogger("io.allot.worker").info("task {} updated to revision {}: restarted", t.name(),
            t.revision());
        reporter.execute(() -> specs.started(t.name(), new TaskRun(divider.memberId(), token, t.revision(), 0)));
      }
    });
    CountDownLatch done = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      divider.flushAndCancel(Duration.ofSeconds(10));
      tasks.close();
      store.close();
      done.countDown();
    }, "allot-worker-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    if (pingsOverTls) {
      divider.start(pingServer(divider));
    } else {
      divider.start();
    }
    org.slf4j.LoggerFactory.getLogger("io.allot.worker").info("pings on {}: {}", divider.memberId(), tls.describe());
    org.slf4j.LoggerFactory.getLogger("io.allot.worker").info("worker {} joined pool {} (store {})",
        divider.memberId(), pool, store.describe());
    Thread commands = new Thread(() -> readCommands(divider, log, running), "allot-worker-stdin");
    commands.setDaemon(true);
    commands.start();
    done.await();
    return 0;
  }

  /** A gRPC server with the TLS of -tls-cert answering the divider's pings on -port (every interface). */
  private io.grpc.Server pingServer(Divider divider) {
    io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder sb = io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
        .forAddress(new java.net.InetSocketAddress(port), tls.credentials()).directExecutor();
    divider.pingServices().forEach(sb::addService);
    try {
      return sb.build().start();
    } catch (IOException e) {
      throw new BadInputException("-port " + port + ": cannot listen: " + e.getMessage());
    }
  }

  private void readCommands(Divider divider, EventLog log, Map<String, Long> running) {
    PrintWriter err = spec.commandLine().getErr();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        String[] f = line.trim().split("\\s+", 2);
        try {
          switch (f[0]) {
            case "" -> { }
            case "affinity" -> {
              int was = divider.setAffinity(Integer.parseInt(arg(f)));
              err.println("allot: affinity " + divider.affinity() + " (was " + was + ")");
            }
            case "alter" -> err.println("allot: affinity " + divider.alterAffinity(Integer.parseInt(arg(f))));
            case "release" -> {
              // the run's RELEASED stop writes the stop line and confirms; the unit is then released with a hold
              String unit = arg(f);
              Long token;
              synchronized (log) {
                token = running.get(unit);
              }
              err.println("allot: release " + unit + ": " + (token != null && divider.release(unit, token)));
            }
            case "flush" -> err.println("allot: flush " + (divider.flush(Duration.ofSeconds(30)) ? "done" : "timed out"));
            case "quit" -> System.exit(0); // the shutdown hook flushes and cancels
            default -> err.println("allot: unknown command '" + f[0] + "'; use affinity N, alter D, release UNIT, flush, quit");
          }
        } catch (RuntimeException e) {
          err.println("allot: " + line.trim() + ": " + e.getMessage());
        }
      }
    } catch (IOException e) {
      err.println("allot: standard input: " + e.getMessage());
    }
    // end of input: keep running until SIGTERM (so `allot worker ... </dev/null &` works)
  }

  /**
   * When a unit being stopped now stopped: now, or the lease deadline if that passed first (the process was paused:
   * it ran nothing meanwhile, and ownership ended at the deadline).
   */
  private static long stopTime(Divider divider) {
    return Math.min(System.currentTimeMillis(), divider.leaseDeadlineMillis());
  }

  private static String arg(String[] f) {
    if (f.length < 2 || f[1].isBlank()) {
      throw new IllegalArgumentException("missing argument");
    }
    return f[1].trim();
  }

  private static void sleep(Duration d) {
    if (d.isZero()) {
      return;
    }
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Event lines to standard output and, unbuffered (each line one write, so it survives kill -9), to a file. */
  static final class EventLog {
    private final PrintWriter out;
    private final OutputStream file;

    EventLog(PrintWriter out, Path path) {
      this.out = out;
      try {
        this.file = path == null ? null : new FileOutputStream(path.toFile(), true);
      } catch (IOException e) {
        throw new BadInputException("-events: cannot open " + path + ": " + e.getMessage());
      }
    }

    synchronized void line(String text) {
      line(System.currentTimeMillis(), text);
    }

    synchronized void line(long millis, String text) {
      String l = millis + " " + text;
      out.println(l);
      out.flush();
      if (file != null) {
        try {
          file.write((l + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }
}
