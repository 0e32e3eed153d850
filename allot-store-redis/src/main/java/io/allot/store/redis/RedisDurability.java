package io.allot.store.redis;

import io.allot.store.Safety;
import io.allot.store.spi.OnceWarnings;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connect-time durability check of a {@link RedisStore}: on every node that holds data (the server, or each
 * Cluster master), {@code CONFIG GET appendonly appendfsync maxmemory-policy} and {@code INFO} (role, replicas,
 * persistence), evaluated into the store's {@link Safety}: each finding names the node, the setting and what it means
 * for ownership; {@code lossPossible} unless every node has {@code appendonly yes} and {@code appendfsync always} and
 * nothing else can lose acknowledged writes. Two settings are refused with {@link IllegalArgumentException}: a
 * replica (writes fail there) and a {@code maxmemory-policy} other than {@code noeviction} (evicted keys take
 * registrations, ownership and tokens with them) unless {@link RedisStoreConfig#allowEviction()}.
 *
 * <p>{@link #evaluate} is the rule, a pure function of what the nodes said; {@link #read} asks one node.
 */
final class RedisDurability {
  private static final Logger log = LoggerFactory.getLogger(RedisDurability.class);

  private RedisDurability() {}

  /**
   * What one node said about itself.
   *
   * @param address     the node, {@code host:port}
   * @param config      {@code CONFIG GET appendonly appendfsync maxmemory-policy}, or null if refused
   * @param configError why CONFIG GET was refused (null if it was not)
   * @param info        the text of {@code INFO}, or null if refused
   * @param infoError   why INFO was refused (null if it was not)
   */
  record NodeFacts(String address, Map<String, String> config, String configError, String info, String infoError) {}

  /**
   * Checks every node of {@code redis} and logs each finding once at WARN.
   *
   * @throws IllegalArgumentException naming the node and the setting if the store must not be used
   */
  static Safety check(RedisConnection redis) {
    List<NodeFacts> facts = redis.onEveryNode("check the durability settings", RedisDurability::read);
    Safety safety = evaluate(facts, redis.config());
    safety.findings().forEach(f -> OnceWarnings.warn(log, redis.where(), f, f));
    return safety;
  }

  /** Asks one node; a refused command (renamed, denied by ACL) is recorded, not thrown. */
  static NodeFacts read(String address, RedisClusterCommands<String, String> r) {
    Map<String, String> config = null;
    String configError = null;
    try {
      config = r.configGet("appendonly", "appendfsync", "maxmemory-policy");
    } catch (RedisCommandExecutionException e) {
      configError = e.getMessage();
    }
    String info = null;
    String infoError = null;
    try {
      info = r.info();
    } catch (RedisCommandExecutionException e) {
      infoError = e.getMessage();
    }
    return new NodeFacts(address, config, configError, info, infoError);
  }

  /**
   * The safety of a store on these nodes with {@code config}'s guard, margin and eviction setting.
   *
   * @throws IllegalArgumentException naming the node and the setting: a replica, or eviction not allowed
   */
  static Safety evaluate(List<NodeFacts> nodes, RedisStoreConfig config) {
    List<String> findings = new ArrayList<>();
    boolean loss = false;
    String guard = "the lost-state guard (" + config.lostStateGuard().toMillis() + " ms)";
    for (NodeFacts n : nodes) {
      String at = n.address() + ": ";
      Map<String, String> info = n.info() == null ? Map.of() : parseInfo(n.info());
      String role = info.get("role");
      if ("slave".equals(role) || "replica".equals(role)) {
        throw new IllegalArgumentException("Redis at " + n.address() + " is a replica (role:" + role + " of "
            + info.get("master_host") + ":" + info.get("master_port") + "): writes fail there; connect to its master");
      }
      String policy = n.config() != null ? n.config().get("maxmemory-policy") : info.get("maxmemory_policy");
      if (policy != null && !"noeviction".equals(policy)) {
        if (!config.allowEviction()) {
          throw new IllegalArgumentException("Redis at " + n.address() + " has maxmemory-policy " + policy
              + ": it may evict keys under memory pressure, and registrations, unit ownership and fencing tokens"
              + " with them (a unit could get two owners); set maxmemory-policy noeviction, or connect with"
              + " allow_eviction=true to accept that");
        }
        findings.add(at + "maxmemory-policy " + policy + " (allowed by allow_eviction=true): Redis may evict keys,"
            + " and registrations, unit ownership and fencing tokens with them; an evicted ownership hash lets a unit"
            + " be claimed while its owner still runs it");
        loss = true;
      }
      if (n.config() == null) {
        findings.add(at + "CONFIG GET refused (" + n.configError() + "): appendonly, appendfsync and"
            + " maxmemory-policy unchecked; assuming acknowledged writes can be lost");
        loss = true;
      } else if (!"yes".equals(n.config().get("appendonly"))) {
        findings.add(at + "appendonly " + n.config().get("appendonly") + ": a restart loses every registration,"
            + " claim and fencing token; claims in each pool then wait " + guard);
        loss = true;
      } else if (!"always".equals(n.config().get("appendfsync"))) {
        findings.add(at + "appendfsync " + n.config().get("appendfsync") + ": a crash of the host can lose the"
            + " last acknowledged writes (up to a second with everysec); claims in each pool wait " + guard
            + " after a restart");
        loss = true;
      }
      if (n.info() == null) {
        findings.add(at + "INFO refused (" + n.infoError() + "): the lost-state guard cannot see restarts (run_id)"
            + " or the node's uptime, so new pools wait " + guard + " and a restart that kept its data goes unseen");
        loss = true;
      } else {
        int replicas = intOr(info.get("connected_slaves"), 0);
        if (replicas > 0) {
          findings.add(at + "connected_slaves:" + replicas + ": replication is asynchronous, so a failover can lose"
              + " acknowledged writes; claims then wait " + guard + " (the run id changes)");
          loss = true;
        }
        if ("err".equals(info.get("aof_last_write_status"))) {
          findings.add(at + "aof_last_write_status:err: the append-only file is not being written; a restart would"
              + " lose recent writes");
          loss = true;
        }
      }
    }
    return new Safety(config.lostStateGuard(), config.clockMargin(), loss, findings);
  }

  /** The {@code name:value} lines of an INFO reply ('#' section headers skipped). */
  static Map<String, String> parseInfo(String text) {
    Map<String, String> out = new HashMap<>();
    for (String line : text.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (!line.startsWith("#") && colon > 0) {
        out.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return out;
  }

  private static int intOr(String s, int otherwise) {
    try {
      return s == null ? otherwise : Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }
}
