package io.allot.store.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * A plain Lettuce connection to the Redis or Redis Cluster of a store URI (with its credentials, TLS and database),
 * for tests: to check the raw key layout, to write as a client that is not allot would, and to delete a test's keys
 * by its prefix. Cluster commands are routed by slot. Not thread-safe beyond what Lettuce's connection is.
 */
final class RawRedis implements AutoCloseable {
  private final AbstractRedisClient client;
  private final StatefulConnection<String, String> connection;
  private final RedisClusterCommands<String, String> commands;

  private RawRedis(AbstractRedisClient client, StatefulConnection<String, String> connection,
      RedisClusterCommands<String, String> commands) {
    this.client = client;
    this.connection = connection;
    this.commands = commands;
  }

  /**
   * Connects to the server (or every seed of the cluster) of {@code uri}, a store URI, with the store's client
   * settings but for one: commands wait for a connection being made (to a cluster node not used yet, say) instead of
   * being rejected, as a plain client's do.
   */
  static RawRedis connect(String uri) {
    RedisStoreConfig c = RedisStoreConfig.fromUri(uri);
    if (c.cluster()) {
      RedisClusterClient client = RedisClusterClient.create(c.addresses().stream()
          .map(a -> LettuceClients.uri(a, c)).toList());
      client.setOptions(((ClusterClientOptions) LettuceClients.options(c)).mutate()
          .disconnectedBehavior(DisconnectedBehavior.ACCEPT_COMMANDS).build());
      StatefulRedisClusterConnection<String, String> connection = client.connect();
      return new RawRedis(client, connection, connection.sync());
    }
    RedisClient client = RedisClient.create(LettuceClients.uri(c.addresses().get(0), c));
    client.setOptions(LettuceClients.options(c).mutate().disconnectedBehavior(DisconnectedBehavior.ACCEPT_COMMANDS)
        .build());
    StatefulRedisConnection<String, String> connection = client.connect();
    return new RawRedis(client, connection, connection.sync());
  }

  /** The commands (on a cluster: routed to the node of each key's slot). */
  RedisClusterCommands<String, String> commands() {
    return commands;
  }

  /** {@code CONFIG SET name value} on the server, or on every master of the cluster. */
  void configSet(String name, String value) {
    if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
      cluster.sync().upstream().commands().configSet(name, value);
    } else {
      commands.configSet(name, value);
    }
  }

  /**
   * The smallest {@code uptime_in_seconds} of the server, or of the cluster's masters: how long the youngest node
   * has kept its data (the lost-state guard makes claims in new pools wait on a node younger than the guard).
   */
  long minUptimeSeconds() {
    List<String> infos = new ArrayList<>();
    if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
      cluster.sync().upstream().commands().info("server").forEach(infos::add);
    } else {
      infos.add(commands.info("server"));
    }
    return infos.stream().mapToLong(RawRedis::uptimeSeconds).min().orElseThrow();
  }

  private static long uptimeSeconds(String info) {
    return info.lines().filter(l -> l.startsWith("uptime_in_seconds:")).mapToLong(l -> Long.parseLong(l.substring(18).trim()))
        .findFirst().orElseThrow(() -> new IllegalStateException("no uptime_in_seconds in INFO server"));
  }

  /** The id of the cluster master that serves {@code key}'s slot. */
  String nodeOf(String key) {
    if (!(client instanceof RedisClusterClient cluster)) {
      throw new IllegalStateException("not a Redis Cluster: no nodes to tell apart");
    }
    RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
    if (node == null) {
      throw new IllegalStateException("no node serves the slot of '" + key + "'");
    }
    return node.getNodeId();
  }

  /** The number of masters of the cluster. */
  int masters() {
    if (!(client instanceof RedisClusterClient cluster)) {
      throw new IllegalStateException("not a Redis Cluster: no masters to count");
    }
    return (int) cluster.getPartitions().stream().filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM)).count();
  }

  /**
   * Runs {@code oneName} with {@code <prefix><random>} and 0, 1, 2, ... (it makes a name of them, uses it and returns
   * one of its keys) until those keys are on every master of the cluster; fails after 1000 names.
   */
  void onEveryMaster(String prefix, BiFunction<String, Integer, String> oneName) {
    Set<String> nodes = new HashSet<>();
    String base = prefix + UUID.randomUUID().toString().substring(0, 8);
    for (int i = 0; nodes.size() < masters(); i++) {
      if (i >= 1000) {
        throw new AssertionError("names on all " + masters() + " masters: none after 1000 names");
      }
      nodes.add(nodeOf(oneName.apply(base, i)));
    }
  }

  /** Deletes every key that contains {@code part} (a test's random prefix), on every node. */
  void deleteKeysContaining(String part) {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(commands, ScanArgs.Builder.matches("*" + part + "*").limit(1000)).forEachRemaining(keys::add);
    if (!keys.isEmpty()) {
      commands.del(keys.toArray(new String[0]));
    }
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
