package io.allot.testkit.fleet;

import io.allot.testkit.Signals.Signal;
import io.allot.testkit.Signals;
import io.allot.testkit.overlap.EventFile;
import io.allot.testkit.overlap.OverlapChecker;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Real {@code allot} processes for chaos tests and the failover benchmark: one distributor ({@code allot server}),
 * several workers ({@code allot worker}), each a JVM of its own, each worker incarnation with its own
 * {@link EventFile}. Kills ({@code SIGKILL}), pauses ({@code SIGSTOP}) and resumes them, and remembers when each
 * incarnation was killed, which the {@link OverlapChecker} needs.
 *
 * <pre>{@code
 * try (Fleet fleet = Fleet.builder(dir).storeArgs("-store", "redis://127.0.0.1:6379")
 *     .prefix("soak-").build()) {
 *   fleet.startDistributor();
 *   Fleet.Worker w = fleet.startWorker(0, 0, Ports.free());
 *   ...
 *   OverlapChecker.Report r = OverlapChecker.check(fleet.eventFiles(), fleet.killedAt(), System.currentTimeMillis());
 * }
 * }</pre>
 *
 * The processes run {@code java <jvm options> -cp <class path> io.allot.cli.Main ...}; the class path defaults to
 * this JVM's (so a test of allot-cli runs the CLI it was built with) and may name the CLI jar instead
 * ({@code allot-cli/target/allot.jar}). Process output goes to {@code <dir>/<label>.out}. A {@link Placement} runs
 * a process elsewhere: behind a command prefix (in a network namespace: {@code ip netns exec NS}), advertising
 * another host, with other store flags (the store's address as seen from there).
 */
public final class Fleet implements AutoCloseable {
  private static final String LOOPBACK = "127.0.0.1";
  /** JVM options that keep six JVMs on two cores responsive. */
  public static final List<String> SMALL_JVM =
      List.of("-Xmx160m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1");
  /** The CLI's main class. */
  public static final String CLI_MAIN = "io.allot.cli.Main";

  private final Path dir;
  private final List<String> storeArgs;
  private final String pool;
  private final String units;
  private final String table;
  private final List<String> launcher;
  private final Map<String, Path> eventFiles = new ConcurrentHashMap<>();
  private final Map<String, Long> killedAt = new ConcurrentHashMap<>();
  private final Map<String, String> members = new ConcurrentHashMap<>();
  /** Every process started; guarded by {@code this}. */
  private final List<Process> all = new ArrayList<>();
  /** The last distributor started; guarded by {@code this}. */
  private Process distributor;
  /** How many distributors were started; guarded by {@code this}. */
  private int distributors;

  private Fleet(Builder b) {
    this.dir = b.dir;
    this.storeArgs = b.storeArgs;
    this.pool = b.prefix + "services";
    this.units = b.prefix + "units";
    this.table = b.prefix + "table";
    List<String> cmd = new ArrayList<>();
    cmd.add(b.java);
    cmd.addAll(b.jvmOptions);
    cmd.addAll(List.of("-cp", b.classPath, b.mainClass));
    this.launcher = List.copyOf(cmd);
  }

  /** A builder for a fleet whose files go to {@code dir} (created if needed). */
  public static Builder builder(Path dir) {
    return new Builder(dir);
  }

  /** The services list (the distributor's pool, the pool). */
  public String pool() {
    return pool;
  }

  /** The units list key. */
  public String unitsKey() {
    return units;
  }

  /** The distribution hash (table) key. */
  public String tableKey() {
    return table;
  }

  /** Where the event and output files are. */
  public Path dir() {
    return dir;
  }

  /** This machine, advertising 127.0.0.1, with the fleet's store flags: where processes run by default. */
  public Placement here() {
    return new Placement(List.of(), LOOPBACK, storeArgs);
  }

  /**
   * Where and how a process runs.
   *
   * @param commandPrefix what comes before {@code java ...} (e.g. {@code ip netns exec NS}: the process runs in that
   *                      network namespace); empty for nothing. It must end by running the command it is given with
   *                      its arguments (exec), so that signals reach the JVM.
   * @param host          the host a worker advertises ({@code --host}), the first part of its member id
   * @param storeArgs     the store flags, e.g. {@code "-store", "redis://10.203.0.1:6379"}
   */
  public record Placement(List<String> commandPrefix, String host, List<String> storeArgs) {
    public Placement {
      commandPrefix = List.copyOf(commandPrefix);
      storeArgs = List.copyOf(storeArgs);
      if (host == null || host.isBlank() || host.contains(":")) {
        throw new IllegalArgumentException("host must be a host name or IPv4 address but was '" + host + "'");
      }
    }
  }

  /** One worker incarnation. Thread-safe. */
  public final class Worker {
    private final int index;
    private final int port;
    private final String host;
    private final String label;
    private final Process process;
    private final OutputStream stdin;
    /** Guarded by {@code this}. */
    private boolean paused;

    private Worker(int index, int port, String host, String label, Process process) {
      this.index = index;
      this.port = port;
      this.host = host;
      this.label = label;
      this.process = process;
      this.stdin = process.getOutputStream();
    }

    public int index() {
      return index;
    }

    public int port() {
      return port;
    }

    /** The member id, {@code HOST:PORT} ({@code 127.0.0.1:PORT} unless its {@link Placement} says otherwise). */
    public String member() {
      return host + ":" + port;
    }

    /** The incarnation's label ({@code w<index>-<incarnation>}), the key of its event file. */
    public String label() {
      return label;
    }

    /** The process. */
    public Process process() {
      return process;
    }

    public boolean alive() {
      return process.isAlive();
    }

    public synchronized boolean paused() {
      return paused;
    }

    /** The units this incarnation runs now, from its event file. */
    public Set<String> units() {
      return EventFile.open(eventFiles.get(label)).keySet();
    }

    /** Sends a command line to the worker's standard input ({@code affinity N}, {@code release UNIT}, ...). */
    public synchronized void send(String command) {
      try {
        stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("worker " + label + ": " + command, e);
      }
    }

    /** SIGKILL; returns the time it was surely dead (epoch millis), which is recorded for the checker. */
    public synchronized long kill() {
      process.destroyForcibly(); // a stopped process dies on SIGKILL too
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      paused = false;
      long t = System.currentTimeMillis();
      killedAt.put(label, t);
      return t;
    }

    /** SIGSTOP. */
    public synchronized void pause() {
      Signals.send(process, Signal.STOP);
      paused = true;
    }

    /** SIGCONT. */
    public synchronized void resume() {
      Signals.send(process, Signal.CONT);
      paused = false;
    }

    /** SIGTERM (after SIGCONT if paused) and wait: the worker writes its stop lines and leaves; true if it did. */
    public boolean terminate(long timeoutMillis) {
      synchronized (this) {
        if (paused) {
          resume();
        }
      }
      process.destroy();
      try {
        return process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }

    @Override
    public String toString() {
      return label + "(" + member() + ")";
    }
  }

  /** Starts a distributor ({@code allot server}) {@link #here()} with extra flags. */
  public Process startDistributor(String... extra) {
    return startDistributor(here(), extra);
  }

  /**
   * Starts a distributor ({@code allot server}) with extra flags where {@code where} says (its host is not used).
   * The first one writes to {@code distributor.out}, the n-th to {@code distributor-n.out}; a second one is a
   * standby while the first leads.
   */
  public synchronized Process startDistributor(Placement where, String... extra) {
    List<String> args = new ArrayList<>(List.of("server", "-services-namespaces", pool, "-workunits-namespace", units,
        "-distribution-namespace", table, "-prom-port", "0"));
    args.addAll(where.storeArgs());
    args.addAll(List.of(extra));
    distributors++;
    String out = distributors == 1 ? "distributor.out" : "distributor-" + distributors + ".out";
    distributor = spawn(where.commandPrefix(), args, dir.resolve(out));
    return distributor;
  }

  /** The distributor started last, or null before {@link #startDistributor}. */
  public synchronized Process distributor() {
    return distributor;
  }

  /**
   * Starts incarnation {@code incarnation} of worker {@code index} on {@code port} ({@code allot worker})
   * {@link #here()}.
   */
  public Worker startWorker(int index, int incarnation, int port, String... extra) {
    return startWorker(here(), index, incarnation, port, extra);
  }

  /**
   * Starts incarnation {@code incarnation} of worker {@code index} on {@code port} ({@code allot worker}) where
   * {@code where} says; its member id is {@code where.host():port}.
   */
  public synchronized Worker startWorker(Placement where, int index, int incarnation, int port, String... extra) {
    String label = "w" + index + "-" + incarnation;
    if (eventFiles.containsKey(label)) {
      throw new IllegalArgumentException("incarnation " + label + " was started already");
    }
    Path events = dir.resolve(label + ".events");
    eventFiles.put(label, events);
    members.put(label, where.host() + ":" + port);
    // the member id the fleet expects: the placement's host (loopback here), whatever the SDK's default host
    List<String> args = new ArrayList<>(List.of("worker", "--pool", pool, "--host", where.host(),
        "--port", Integer.toString(port), "--distribution-namespace", table, "--events", events.toString()));
    args.addAll(where.storeArgs());
    args.addAll(List.of(extra));
    Process p = spawn(where.commandPrefix(), args, dir.resolve(label + ".out"));
    return new Worker(index, port, where.host(), label, p);
  }

  private Process spawn(List<String> prefix, List<String> args, Path out) {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.addAll(launcher);
    cmd.addAll(args);
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      all.add(p);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + String.join(" ", cmd), e);
    }
  }

  /** Event file per incarnation started so far, by label. */
  public Map<String, Path> eventFiles() {
    return Map.copyOf(eventFiles);
  }

  /** The member id ({@code HOST:PORT}) of an incarnation. */
  public String memberOf(String label) {
    return members.get(label);
  }

  /** Kill time (epoch millis) per incarnation killed so far. */
  public Map<String, Long> killedAt() {
    return Map.copyOf(killedAt);
  }

  /**
   * Who runs what now, from the event files: unit to the labels of the incarnations running it (more than one
   * would be an overlap). Killed incarnations are left out.
   */
  public Map<String, List<String>> running() {
    Map<String, List<String>> out = new HashMap<>();
    for (Map.Entry<String, Path> e : eventFiles.entrySet()) {
      if (killedAt.containsKey(e.getKey())) {
        continue;
      }
      for (String unit : EventFile.open(e.getValue()).keySet()) {
        out.computeIfAbsent(unit, k -> new ArrayList<>()).add(e.getKey());
      }
    }
    return out;
  }

  /** True when exactly {@code units} run, each on one incarnation (from the event files). */
  public boolean everyUnitRunningOnce(Collection<String> units) {
    return eachRunningOnce(running(), units);
  }

  /** {@link #everyUnitRunningOnce} over a {@link #running()} snapshot already taken. */
  public static boolean eachRunningOnce(Map<String, List<String>> running, Collection<String> units) {
    return running.keySet().equals(new HashSet<>(units)) && running.values().stream().allMatch(o -> o.size() == 1);
  }

  /** Times (epoch millis) of the {@code lease-lost} lines of one incarnation, in file order. */
  public List<Long> leaseLostTimes(String label) {
    Path events = eventFiles.get(label);
    return events == null ? List.of() : EventFile.leaseLostTimes(events);
  }

  /** Kills every process still running (SIGCONT first, so a stopped one runs to die). */
  @Override
  public synchronized void close() {
    for (Process p : all) {
      if (p.isAlive()) {
        try {
          Signals.send(p, Signal.CONT);
        } catch (IllegalStateException e) {
          // gone meanwhile, or no kill(1): SIGKILL below ends a stopped process too
        }
        p.destroyForcibly();
      }
    }
  }

  /** Settings of a {@link Fleet}. Not thread-safe. */
  public static final class Builder {
    private final Path dir;
    private List<String> storeArgs = List.of();
    private String prefix = "fleet-";
    private String java = ProcessHandle.current().info().command().orElse("java");
    private List<String> jvmOptions = SMALL_JVM;
    private String classPath = System.getProperty("java.class.path");
    private String mainClass = CLI_MAIN;

    private Builder(Path dir) {
      this.dir = Objects.requireNonNull(dir, "dir");
    }

    /** The store flags passed to every process, e.g. {@code "-store", "redis://127.0.0.1:6379"}. */
    public Builder storeArgs(String... args) {
      return storeArgs(List.of(args));
    }

    /** The store flags passed to every process. */
    public Builder storeArgs(List<String> args) {
      this.storeArgs = List.copyOf(args);
      return this;
    }

    /** Prefix of the services list, units list and table keys; default {@code fleet-}. */
    public Builder prefix(String prefix) {
      if (prefix == null || prefix.isEmpty() || prefix.contains(":")) {
        throw new IllegalArgumentException("prefix must be non-empty and without ':' but was '" + prefix + "'");
      }
      this.prefix = prefix;
      return this;
    }

    /** The java executable; default this JVM's. */
    public Builder java(String java) {
      if (java == null || java.isBlank()) {
        throw new IllegalArgumentException("java must name a java executable but was '" + java + "'");
      }
      this.java = java;
      return this;
    }

    /** The processes' JVM options; default {@link #SMALL_JVM}. */
    public Builder jvmOptions(List<String> jvmOptions) {
      this.jvmOptions = List.copyOf(jvmOptions);
      return this;
    }

    /** The processes' class path; default this JVM's ({@code java.class.path}). */
    public Builder classPath(String classPath) {
      if (classPath == null || classPath.isBlank()) {
        throw new IllegalArgumentException("classPath must not be empty but was '" + classPath + "'");
      }
      this.classPath = classPath;
      return this;
    }

    /** Runs the processes from {@code jar} (e.g. {@code allot-cli/target/allot.jar}) instead of this class path. */
    public Builder jar(Path jar) {
      if (jar == null || !Files.isRegularFile(jar)) {
        throw new IllegalArgumentException("jar must be an existing file but was " + jar);
      }
      this.classPath = jar.toAbsolutePath().toString();
      return this;
    }

    /** The main class; default {@link #CLI_MAIN}. */
    public Builder mainClass(String mainClass) {
      if (mainClass == null || mainClass.isBlank()) {
        throw new IllegalArgumentException("mainClass must not be empty but was '" + mainClass + "'");
      }
      this.mainClass = mainClass;
      return this;
    }

    /** The fleet (nothing is started yet). */
    public Fleet build() {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create " + dir, e);
      }
      return new Fleet(this);
    }
  }
}
