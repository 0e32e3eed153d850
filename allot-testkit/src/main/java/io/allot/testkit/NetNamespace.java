package io.allot.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A network namespace made for one test, joined to this host by a veth pair on a private /30 of
 * {@code 10.203.0.0/16}: a process started in it (its command prefixed with {@link #commandPrefix()},
 * {@code ip netns exec NAME}) reaches this host at {@link #hostAddress()} only, and this host reaches it at
 * {@link #innerAddress()}. {@link #cut()} takes the host's end of the link down, so TCP connections across it hang
 * as in a real partition (no reset, no error: nothing arrives), and {@link #restore()} brings it back.
 *
 * <pre>{@code
 * try (NetNamespace ns = NetNamespace.create();
 *     RedisServer redis = RedisServer.builder().alsoListenOn(ns.hostAddress()).password("pw").start()) {
 *   // a process started with ns.commandPrefix() uses redis.uriAt(ns.hostAddress())
 *   ns.cut(); ... ns.restore();
 * }
 * }</pre>
 *
 * Traffic stays between this host and the namespace: the namespace has no route but the link's (no default route),
 * and a blackhole route on the host for the /30 (metric {@value #BLACKHOLE_METRIC}, below the link's own route) keeps
 * packets for the namespace from leaving by the host's default route while the link is down.
 *
 * <p>Needs Linux, root and iproute2's {@code ip}; {@link #unavailable()} says why it cannot be used here. Names are
 * unique per run: {@code allot-<pid>-<n>}, links {@code a<pid>-<n>h} (host) and {@code a<pid>-<n>n} (namespace).
 * {@link #close()} deletes the link, the route and the namespace (processes still in it lose their network), and a
 * shutdown hook does the same if the JVM exits first; {@link #create()} first removes what a JVM killed before it
 * could clean up left behind (namespaces whose creator pid is gone). Thread-safe.
 */
public final class NetNamespace implements AutoCloseable {
  /** The metric of the host's blackhole route for a namespace's /30: it marks the routes this class made. */
  public static final int BLACKHOLE_METRIC = 4203;

  private static final Logger log = LoggerFactory.getLogger(NetNamespace.class);
  private static final Pattern OURS = Pattern.compile("allot-(\\d+)-(\\d+)");
  private static final Pattern ADDRESS = Pattern.compile("\\b10\\.203\\.(\\d{1,3})\\.(\\d{1,3})\\b");
  private static final Pattern OUR_ROUTE = Pattern.compile("blackhole (10\\.203\\.\\d{1,3}\\.\\d{1,3}/30) .*metric "
      + BLACKHOLE_METRIC + "\\b.*");
  private static final Duration IP_TIMEOUT = Duration.ofSeconds(30);
  private static final AtomicInteger SEQ = new AtomicInteger();
  /** Why namespaces cannot be made here, once probed; racy initialisation is harmless (same answer). */
  private static volatile Optional<String> unavailable;

  private final String name;
  private final String hostLink;
  private final String innerLink;
  private final String subnet;
  private final String hostAddress;
  private final String innerAddress;
  private final Thread hook;
  /** Whether the link is down; guarded by {@code this}. */
  private boolean cut;
  /** Guarded by {@code this}. */
  private boolean closed;

  private NetNamespace(String id, int x, int base) {
    this.name = "allot-" + id;
    this.hostLink = link(name, 'h');
    this.innerLink = link(name, 'n');
    String net = "10.203." + x + ".";
    this.subnet = net + base + "/30";
    this.hostAddress = net + (base + 1);
    this.innerAddress = net + (base + 2);
    this.hook = new Thread(this::cleanUp, "allot-netns-cleanup-" + name);
  }

  /**
   * Why network namespaces cannot be made here (not Linux, not root, no {@code ip}, or {@code ip netns add} fails),
   * or empty if they can. Probed once per JVM by making and deleting a namespace.
   */
  public static Optional<String> unavailable() {
    Optional<String> known = unavailable;
    if (known == null) {
      known = probe();
      unavailable = known;
    }
    return known;
  }

  /** Whether network namespaces can be made here ({@link #unavailable()} is empty). */
  public static boolean available() {
    return unavailable().isEmpty();
  }

  /**
   * Makes a namespace with its veth pair on a /30 no interface or route of this host uses yet.
   *
   * @throws IllegalStateException if namespaces cannot be made here ({@link #unavailable()}) or a step fails (the
   *                               message has the command and its output; what was made is removed again)
   */
  public static NetNamespace create() {
    unavailable().ifPresent(why -> {
      throw new IllegalStateException("cannot make a network namespace: " + why);
    });
    removeStale();
    int[] block = freeBlock();
    NetNamespace ns = new NetNamespace(ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet(), block[0], block[1]);
    Runtime.getRuntime().addShutdownHook(ns.hook);
    try {
      ns.setUp();
    } catch (RuntimeException e) {
      ns.close();
      throw e;
    }
    log.info("network namespace {} made: host {} ({}) <-> {} ({})", ns.name, ns.hostAddress, ns.hostLink,
        ns.innerAddress, ns.innerLink);
    return ns;
  }

  /** The namespace's name ({@code allot-<pid>-<n>}). */
  public String name() {
    return name;
  }

  /** The host's end of the link. */
  public String hostLink() {
    return hostLink;
  }

  /** The /30 of the link, e.g. {@code 10.203.7.8/30}. */
  public String subnet() {
    return subnet;
  }

  /** This host's address on the link (a server that processes in the namespace use must listen on it too). */
  public String hostAddress() {
    return hostAddress;
  }

  /** The namespace's address on the link (what a process in it advertises). */
  public String innerAddress() {
    return innerAddress;
  }

  /** {@code ip netns exec NAME}: put it before a command to run that command in the namespace. */
  public List<String> commandPrefix() {
    return List.of("ip", "netns", "exec", name);
  }

  /** Takes the host's end of the link down: nothing crosses until {@link #restore()}. Nothing if cut already. */
  public synchronized void cut() {
    requireOpen("cut");
    if (!cut) {
      ip("link", "set", hostLink, "down");
      cut = true;
      log.info("network namespace {}: link cut", name);
    }
  }

  /** Brings the host's end of the link up again and returns once both ends are operationally up. Nothing if not cut. */
  public synchronized void restore() {
    requireOpen("restore");
    if (cut) {
      ip("link", "set", hostLink, "up");
      Path state = Path.of("/sys/class/net", hostLink, "operstate");
      Poll.await("both ends of link " + hostLink + " are up",
          () -> "up".equals(read(state)) && ip("-n", name, "-o", "link", "show", "dev", innerLink).contains("state UP"),
          Duration.ofSeconds(10), () -> "operstate " + read(state) + "; "
              + ip("-n", name, "-o", "link", "show", "dev", innerLink));
      cut = false;
      log.info("network namespace {}: link restored", name);
    }
  }

  /** Whether the link is cut now. */
  public synchronized boolean isCut() {
    return cut;
  }

  /** Deletes the link (processes in the namespace lose their network), the route and the namespace. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    cleanUp();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs or ran, and cleaning up twice is harmless
    }
  }

  @Override
  public String toString() {
    return "NetNamespace[" + name + ", " + hostAddress + " <-> " + innerAddress + "]";
  }

  private void setUp() {
    ip("netns", "add", name);
    ip("link", "add", hostLink, "type", "veth", "peer", "name", innerLink, "netns", name);
    ip("addr", "add", hostAddress + "/30", "dev", hostLink);
    ip("route", "add", "blackhole", subnet, "metric", Integer.toString(BLACKHOLE_METRIC));
    ip("link", "set", hostLink, "up");
    ip("-n", name, "addr", "add", innerAddress + "/30", "dev", innerLink);
    ip("-n", name, "link", "set", innerLink, "up");
    ip("-n", name, "link", "set", "lo", "up");
  }

  /** Best effort, each step on its own: what is not there is no failure. */
  private void cleanUp() {
    remove(name, hostLink, subnet);
  }

  private static void remove(String name, String hostLink, String subnet) {
    quietly("link", "del", hostLink); // deletes both ends
    if (subnet != null) {
      quietly("route", "del", "blackhole", subnet, "metric", Integer.toString(BLACKHOLE_METRIC));
    }
    quietly("netns", "del", name);
  }

  private static void quietly(String... args) {
    List<String> cmd = command(args);
    try {
      Exec.Result r = Exec.run(cmd, IP_TIMEOUT);
      if (r.exit() != 0 && !r.output().contains("Cannot find") && !r.output().contains("No such")) {
        log.warn("{} failed (exit {}): {}", String.join(" ", cmd), r.exit(), r.output());
      }
    } catch (IllegalStateException e) {
      log.warn("{}: {}", String.join(" ", cmd), e.getMessage());
    }
  }

  private void requireOpen(String what) {
    if (closed) {
      throw new IllegalStateException("cannot " + what + " network namespace " + name + ": it is closed");
    }
  }

  /**
   * Removes the namespaces (with their links and routes) of JVMs that are gone, and blackhole routes of this class
   * whose /30 no interface has any more.
   */
  private static void removeStale() {
    for (String line : ip("netns", "list").split("\n")) {
      String ns = line.trim().split("\\s+")[0];
      Matcher m = OURS.matcher(ns);
      if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).map(ProcessHandle::isAlive).orElse(false)) {
        continue;
      }
      if (m.matches()) {
        log.info("removing network namespace {} left behind by process {}", ns, m.group(1));
        remove(ns, link(ns, 'h'), null);
      }
    }
    Set<String> assigned = blocks(ip("-4", "-o", "addr", "show"));
    for (String line : ip("-4", "route", "show", "type", "blackhole").split("\n")) {
      Matcher m = OUR_ROUTE.matcher(line.trim());
      if (m.matches() && blocks(m.group(1)).stream().noneMatch(assigned::contains)) {
        quietly("route", "del", "blackhole", m.group(1), "metric", Integer.toString(BLACKHOLE_METRIC));
      }
    }
  }

  /** A /30 of 10.203.0.0/16 (third octet, first address) no address or route of this host is in. */
  private static int[] freeBlock() {
    Set<String> used = blocks(ip("-4", "-o", "addr", "show") + "\n" + ip("-4", "route", "show", "table", "all"));
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 1000; attempt++) {
      int x = rnd.nextInt(256);
      int base = 4 * rnd.nextInt(64);
      if (!used.contains(x + "." + base)) {
        return new int[] {x, base};
      }
    }
    throw new IllegalStateException("no free /30 in 10.203.0.0/16 (1000 random picks were all in use)");
  }

  /** The /30 blocks ({@code "x.base"}) of the 10.203.x.y addresses in {@code text}. */
  private static Set<String> blocks(String text) {
    Set<String> out = new HashSet<>();
    Matcher m = ADDRESS.matcher(text);
    while (m.find()) {
      out.add(Integer.parseInt(m.group(1)) + "." + (Integer.parseInt(m.group(2)) & ~3));
    }
    return out;
  }

  /** The name of one end of the link of namespace {@code allot-<pid>-<n>}: {@code a<pid>-<n>} and the side. */
  private static String link(String namespace, char side) {
    String link = "a" + namespace.substring("allot-".length()) + side;
    if (link.length() > 15) {
      throw new IllegalStateException("link name " + link + " is longer than the 15 characters Linux allows");
    }
    return link;
  }

  private static String ip(String... args) {
    return Exec.check(command(args), IP_TIMEOUT);
  }

  private static List<String> command(String... args) {
    List<String> cmd = new ArrayList<>(List.of("ip"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).trim();
    } catch (IOException e) {
      return "(" + e.getMessage() + ")";
    }
  }

  private static Optional<String> probe() {
    if (!Files.isDirectory(Path.of("/proc/self"))) {
      return Optional.of("network namespaces need Linux (no /proc here)");
    }
    String uid = uid();
    if (!"0".equals(uid)) {
      return Optional.of("ip netns needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN), and this JVM runs as uid " + uid);
    }
    if (!Exec.succeeds(List.of("ip", "-V"))) {
      return Optional.of("iproute2's ip is not on the PATH");
    }
    String probe = "allot-probe-" + ProcessHandle.current().pid();
    try {
      Exec.Result r = Exec.run(command("netns", "add", probe), IP_TIMEOUT);
      if (r.exit() != 0) {
        return Optional.of("ip netns add fails here: " + r.output());
      }
      return Optional.empty();
    } catch (IllegalStateException e) {
      return Optional.of("ip netns add fails here: " + e.getMessage());
    } finally {
      quietly("netns", "del", probe);
    }
  }

  /** The effective user id of this process, from /proc/self/status; "?" if it cannot be read. */
  private static String uid() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          String[] ids = line.substring(4).trim().split("\\s+"); // real, effective, saved, file system
          return ids.length > 1 ? ids[1] : ids[0];
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return "?";
  }
}
