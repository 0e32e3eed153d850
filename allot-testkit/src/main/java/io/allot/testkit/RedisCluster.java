package io.allot.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throwaway Redis Cluster: N masters (default 3, no replicas), each a {@link RedisServer} on a free port whose bus
 * port (+10000) is free too, the 16384 slots split evenly among them. Built with plain commands
 * ({@code CLUSTER ADDSLOTS}, {@code CLUSTER MEET}), so redis-cli is not needed; {@link #start()} returns once every
 * node reports {@code cluster_state:ok} and knows every other node.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start()) {
 *   Store store = Stores.open(cluster.uri());   // redis-cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3
 *   cluster.kill(1); ... cluster.restart(1);     // the node keeps its id and slots (nodes.conf in its directory)
 * }
 * }</pre>
 *
 * Without replicas, a killed or paused master leaves its slots uncovered: after the node timeout the others report
 * {@code cluster_state:fail}. Thread-safe; {@link #close()} stops every node.
 */
public final class RedisCluster implements AutoCloseable {
  /** Redis Cluster's slot count. */
  public static final int SLOTS = 16_384;
  /** Distance of a node's bus port from its port. */
  public static final int BUS_PORT_OFFSET = 10_000;

  private static final Logger log = LoggerFactory.getLogger(RedisCluster.class);

  private final List<RedisServer> nodes;
  private final Duration timeout;

  private RedisCluster(List<RedisServer> nodes, Duration timeout) {
    this.nodes = List.copyOf(nodes);
    this.timeout = timeout;
  }

  /** Starts a cluster of 3 masters. */
  public static RedisCluster start() {
    return builder().start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code redis-cluster://127.0.0.1:P1,127.0.0.1:P2,...}: every node, in order. */
  public String uri() {
    return "redis-cluster://" + String.join(",", addresses());
  }

  /** {@code 127.0.0.1:PORT} of every node, in order. */
  public List<String> addresses() {
    return nodes.stream().map(RedisServer::address).toList();
  }

  /** The nodes, in order (node {@code i} holds the i-th part of the slots). */
  public List<RedisServer> nodes() {
    return nodes;
  }

  /** Node {@code i}. */
  public RedisServer node(int i) {
    Objects.checkIndex(i, nodes.size());
    return nodes.get(i);
  }

  /** SIGKILL node {@code i}. */
  public void kill(int i) {
    node(i).kill();
  }

  /** SIGSTOP node {@code i}. */
  public void pause(int i) {
    node(i).pause();
  }

  /** SIGCONT node {@code i}. */
  public void resume(int i) {
    node(i).resume();
  }

  /**
   * Restarts node {@code i} (killing it first if it runs) on its port with its directory, so it rejoins with its
   * id and slots (its data is gone: no persistence), and returns once the cluster is ok again everywhere.
   */
  public void restart(int i) {
    node(i).restart();
    awaitOk();
  }

  /**
   * Waits until every running, unpaused node reports {@code cluster_state:ok} and knows every node.
   *
   * @throws IllegalStateException after the builder's timeout, with each node's {@code CLUSTER INFO} state
   */
  public void awaitOk() {
    Poll.await("the Redis Cluster " + addresses() + " is ok on every node", this::ok, timeout, this::states);
  }

  /** Whether every running, unpaused node reports {@code cluster_state:ok} and knows every node, now. */
  public boolean ok() {
    for (RedisServer n : nodes) {
      if (!n.alive() || n.paused()) {
        continue;
      }
      String info;
      try {
        info = n.command("CLUSTER", "INFO");
      } catch (IllegalStateException e) {
        return false;
      }
      if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + nodes.size() + "\r")) {
        return false;
      }
    }
    return true;
  }

  /** Stops every node and deletes their directories. */
  @Override
  public void close() {
    nodes.forEach(RedisServer::close);
  }

  @Override
  public String toString() {
    return "RedisCluster" + addresses();
  }

  private String states() {
    return nodes.stream().map(n -> {
      try {
        String info = n.command("CLUSTER", "INFO");
        return n.address() + " " + info.lines().filter(l -> l.startsWith("cluster_state")
            || l.startsWith("cluster_known_nodes") || l.startsWith("cluster_slots_assigned")).collect(
                Collectors.joining(" "));
      } catch (IllegalStateException e) {
        return n.address() + " " + e.getMessage();
      }
    }).collect(Collectors.joining("; "));
  }

  /** Settings of a {@link RedisCluster}. Not thread-safe. */
  public static final class Builder {
    private int masters = 3;
    private Duration nodeTimeout = Duration.ofSeconds(5);
    private Duration timeout = Duration.ofSeconds(30);
    private List<String> args = List.of();

    private Builder() {}

    /** How many masters; default 3 (the fewest Redis accepts for a cluster of masters only). */
    public Builder masters(int masters) {
      if (masters < 3 || masters > 16) {
        throw new IllegalArgumentException("masters must be in 3..16 but was " + masters);
      }
      this.masters = masters;
      return this;
    }

    /** {@code cluster-node-timeout}: how long a node may be silent before it is failed; default 5 s. */
    public Builder nodeTimeout(Duration nodeTimeout) {
      this.nodeTimeout = Checks.atLeast("nodeTimeout", nodeTimeout, Duration.ofMillis(100));
      return this;
    }

    /** How long a start or {@link RedisCluster#awaitOk()} may wait for {@code cluster_state:ok}; default 30 s. */
    public Builder timeout(Duration timeout) {
      this.timeout = Checks.atLeast("timeout", timeout, Duration.ofMillis(1));
      return this;
    }

    /** More configuration for every node (see {@link RedisServer.Builder#args}). */
    public Builder args(String... args) {
      this.args = Checks.args(args);
      return this;
    }

    /**
     * Starts the nodes, assigns the slots, joins them and returns once the cluster is ok everywhere.
     *
     * @throws IllegalStateException if that fails, with the reason (the nodes started are stopped)
     */
    public RedisCluster start() {
      List<RedisServer> started = new ArrayList<>();
      try {
        for (int i = 0; i < masters; i++) {
          List<String> nodeArgs = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
              "nodes.conf", "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis())));
          nodeArgs.addAll(args);
          started.add(RedisServer.builder().port(Ports.freePair(BUS_PORT_OFFSET))
              .args(nodeArgs.toArray(new String[0])).start());
        }
        for (int i = 0; i < masters; i++) {
          RedisServer n = started.get(i);
          List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
          for (int slot = i * SLOTS / masters; slot < (i + 1) * SLOTS / masters; slot++) {
            addSlots.add(Integer.toString(slot));
          }
          n.command(addSlots.toArray(new String[0]));
          n.command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        RedisServer first = started.get(0);
        for (RedisServer n : started.subList(1, masters)) {
          first.command("CLUSTER", "MEET", RedisServer.HOST, Integer.toString(n.port()));
        }
        RedisCluster cluster = new RedisCluster(started, timeout);
        cluster.awaitOk();
        log.info("Redis Cluster started: {}", cluster.uri());
        return cluster;
      } catch (RuntimeException e) {
        started.forEach(RedisServer::close);
        throw new IllegalStateException("cannot start a Redis Cluster of " + masters + " masters: " + e.getMessage(),
            e);
      }
    }
  }
}
