package io.allot.cli.chaos;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Real {@code allot} processes for chaos tests and the failover benchmark: one distributor, several workers, each a
 * JVM started from this JVM's class path, each worker incarnation with its own event file. Knows how to kill
 * ({@code SIGKILL}), pause ({@code SIGSTOP}) and resume them, and remembers when each incarnation was killed, which
 * the {@link OverlapChecker} needs.
 */
public final class Fleet implements AutoCloseable {
  /** JVM flags that keep six JVMs on two cores responsive. */
  private static final List<String> SMALL_JVM =
      List.of("-Xmx160m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1");

  private final Path dir;
  private final List<String> storeArgs;
  private final String group;
  private final String units;
  private final String table;
  private final Map<String, Path> eventFiles = new ConcurrentHashMap<>();
  private final Map<String, Long> killedAt = new ConcurrentHashMap<>();
  private final Map<String, String> members = new ConcurrentHashMap<>();
  private final List<Process> all = new ArrayList<>();
  private Process distributor;

  /**
   * @param dir where event and output files go
   * @param storeArgs the store flags passed to every process (for example {@code -store redis})
   * @param prefix prefix of the services list, units list and distribution hash keys
   */
  public Fleet(Path dir, List<String> storeArgs, String prefix) {
    this.dir = dir;
    this.storeArgs = List.copyOf(storeArgs);
    this.group = prefix + "services";
    this.units = prefix + "units";
    this.table = prefix + "table";
  }

  public String group() {
    return group;
  }

  public String unitsKey() {
    return units;
  }

  public String tableKey() {
    return table;
  }

  /** One worker incarnation. */
  public final class Worker {
    final int index;
    final int port;
    final String label;
    final Process process;
    private final OutputStream stdin;
    volatile boolean paused;

    Worker(int index, int port, String label, Process process) {
      this.index = index;
      this.port = port;
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

    /** The member id. */
    public String member() {
      return "127.0.0.1:" + port;
    }

    /** The incarnation's label (the name of its event file). */
    public String label() {
      return label;
    }

    public boolean alive() {
      return process.isAlive();
    }

    public boolean paused() {
      return paused;
    }

    /** Sends a command line to the worker's standard input. */
    public void send(String command) {
      try {
        stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("worker " + label + ": " + command, e);
      }
    }

    /** SIGKILL; returns the time it was surely dead (epoch millis), recorded for the checker. */
    public long kill() {
      if (paused) {
        signal("CONT"); // a stopped process dies on SIGKILL too, but be explicit
      }
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      long t = System.currentTimeMillis();
      killedAt.put(label, t);
      return t;
    }

    /** SIGSTOP. */
    public void pause() {
      signal("STOP");
      paused = true;
    }

    /** SIGCONT. */
    public void resume() {
      signal("CONT");
      paused = false;
    }

    /** SIGTERM and wait: the worker flushes (writes its stop lines) and leaves. */
    public boolean terminate(long timeoutMillis) {
      if (paused) {
        resume();
      }
      process.destroy();
      try {
        return process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }

    private void signal(String sig) {
      Fleet.signal(process, sig);
    }

    @Override
    public String toString() {
      return label + "(" + member() + ")";
    }
  }

  /** Starts the distributor ({@code allot server}) with extra flags. */
  public synchronized Process startDistributor(String... extra) {
    List<String> args = new ArrayList<>(List.of("server", "-services-namespaces", group, "-workunits-namespace", units,
        "-distribution-namespace", table, "-prom-port", "0"));
    args.addAll(storeArgs);
    args.addAll(List.of(extra));
    distributor = spawn(args, dir.resolve("distributor.out"));
    return distributor;
  }

  /** The running distributor process, or null. */
  public synchronized Process distributor() {
    return distributor;
  }

  /** Starts incarnation {@code incarnation} of worker {@code index} on {@code port}. */
  public synchronized Worker startWorker(int index, int incarnation, int port, String... extra) {
    String label = "w" + index + "-" + incarnation;
    Path events = dir.resolve(label + ".events");
    eventFiles.put(label, events);
    members.put(label, "127.0.0.1:" + port);
    List<String> args = new ArrayList<>(List.of("worker", "--group", group, "--port", Integer.toString(port),
        "--distribution-namespace", table, "--events", events.toString()));
    args.addAll(storeArgs);
    args.addAll(List.of(extra));
    return new Worker(index, port, label, spawn(args, dir.resolve(label + ".out")));
  }

  private Process spawn(List<String> args, Path out) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(SMALL_JVM);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.allot.cli.Main"));
    cmd.addAll(args);
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      all.add(p);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + args, e);
    }
  }

  /** Event file per incarnation started so far. */
  public Map<String, Path> eventFiles() {
    return Map.copyOf(eventFiles);
  }

  /** The member id (HOST:PORT) of an incarnation. */
  public String memberOf(String label) {
    return members.get(label);
  }

  /** Kill time per incarnation killed so far. */
  public Map<String, Long> killedAt() {
    return Map.copyOf(killedAt);
  }

  /**
   * Who runs what now, from the event files: unit -> incarnation labels with an open interval (more than one would
   * be an overlap). Killed incarnations are left out.
   */
  public Map<String, List<String>> running() {
    Map<String, List<String>> out = new HashMap<>();
    for (Map.Entry<String, Path> e : eventFiles.entrySet()) {
      if (killedAt.containsKey(e.getKey())) {
        continue;
      }
      for (String unit : open(e.getValue()).keySet()) {
        out.computeIfAbsent(unit, k -> new ArrayList<>()).add(e.getKey());
      }
    }
    return out;
  }

  /** Open intervals of one event file: unit -> start time (epoch millis). */
  public static Map<String, Long> open(Path events) {
    Map<String, Long> open = new LinkedHashMap<>();
    List<String> lines;
    try {
      lines = Files.exists(events) ? Files.readAllLines(events, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (String line : lines) {
      String[] f = line.trim().split(" ");
      if (f.length < 2) {
        continue; // a line cut by kill -9 or being written
      }
      switch (f[1]) {
        case "start" -> {
          if (f.length >= 4) {
            open.put(f[2], Long.parseLong(f[0]));
          }
        }
        case "stop" -> {
          if (f.length >= 3) {
            open.remove(f[2]);
          }
        }
        case "lease-lost" -> open.clear();
        default -> { }
      }
    }
    return open;
  }

  /**
   * Start lines at or after {@code since} (epoch millis): unit -> time of its first such start. Reads the file from
   * the end backwards only as far as needed (lines are in time order), so polling a long log stays cheap.
   */
  public static Map<String, Long> startsSince(Path events, long since) {
    Map<String, Long> out = new HashMap<>();
    if (!Files.exists(events)) {
      return out;
    }
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(events.toFile(), "r")) {
      long pos = f.length();
      byte[] buf = new byte[64 * 1024];
      StringBuilder carry = new StringBuilder();
      boolean older = false;
      while (pos > 0 && !older) {
        int n = (int) Math.min(buf.length, pos);
        pos -= n;
        f.seek(pos);
        f.readFully(buf, 0, n);
        String chunk = new String(buf, 0, n, StandardCharsets.ISO_8859_1) + carry;
        int firstNl = pos > 0 ? chunk.indexOf('\n') : -1;
        carry.setLength(0);
        carry.append(chunk, 0, firstNl + 1 > 0 ? firstNl : 0);
        String[] lines = chunk.substring(firstNl + 1).split("\n");
        for (int k = lines.length - 1; k >= 0; k--) {
          String[] p = lines[k].trim().split(" ");
          if (p.length < 2) {
            continue;
          }
          long t;
          try {
            t = Long.parseLong(p[0]);
          } catch (NumberFormatException e) {
            continue;
          }
          if (t < since && !p[1].equals("lease-lost")) {
            older = true;
            break;
          }
          if (p.length >= 4 && p[1].equals("start")) {
            out.put(new String(p[2].getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8), t);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * True when exactly {@code units} run, each on one incarnation (from the event files; killed incarnations left
   * out).
   */
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
    List<Long> out = new ArrayList<>();
    try {
      if (events == null || !Files.exists(events)) {
        return out;
      }
      for (String line : Files.readAllLines(events, StandardCharsets.UTF_8)) {
        String[] f = line.trim().split(" ");
        if (f.length == 2 && f[1].equals("lease-lost")) {
          out.add(Long.parseLong(f[0]));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * Polls {@code condition} every {@code every} until it holds or {@code timeout} passed; true if it held. For
   * conditions on the files other processes write, which nothing in this process can signal.
   */
  public static boolean pollUntil(BooleanSupplier condition, Duration timeout, Duration every) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.sleep(every.toNanos());
    }
    return true;
  }

  /** Sends {@code sig} (STOP, CONT, ...) to {@code process} with kill(1) and waits for kill to finish. */
  public static void signal(Process process, String sig) {
    try {
      new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A free TCP port on the loopback interface. */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Kills every process still running. */
  @Override
  public synchronized void close() {
    for (Process p : all) {
      if (p.isAlive()) {
        try {
          signal(p, "CONT"); // a stopped process must run to die
        } catch (UncheckedIOException e) {
          // best effort
        }
        p.destroyForcibly();
      }
    }
  }
}
