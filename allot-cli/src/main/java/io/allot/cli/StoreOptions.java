package io.allot.cli;

import io.allot.store.Store;
import io.allot.store.memory.MemoryStore;
import io.allot.store.redis.RedisStore;
import io.allot.store.redis.RedisStoreConfig;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** Where the shared state lives: the store flags every command that talks to a store shares. */
final class StoreOptions {
  @Option(names = {"-store", "--store"}, paramLabel = "STORE", defaultValue = "redis",
      description = "redis (default; uses -redis-*), postgresql://user:pass@host:port/db, or memory (in-process only).")
  String store;

  @Option(names = {"-redis-addrs", "--redis-addrs"}, paramLabel = "HOST:PORT,...", defaultValue = "127.0.0.1:6379",
      description = "Redis address; several = Redis Cluster. Default ${DEFAULT-VALUE}.")
  String redisAddrs;

  @Option(names = {"-redis-pass", "--redis-pass"}, paramLabel = "PASSWORD", defaultValue = "", description = "Redis password.")
  String redisPass;

  @Option(names = {"-redis-tls", "--redis-tls"}, arity = "0..1", fallbackValue = "true", defaultValue = "false",
      paramLabel = "BOOL", description = "Use TLS to Redis.")
  boolean redisTls;

  @Option(names = {"-redis-rootca-certs", "--redis-rootca-certs"}, paramLabel = "PEM,...", defaultValue = "",
      description = "Comma-separated root CA certificate files (PEM) for Redis TLS.")
  String redisRootCaCerts;

  /** Opens the store; a failure to connect is bad input (exit 2) naming the address. */
  Store open(String clientName) {
    String kind = store.trim();
    String lower = kind.toLowerCase(Locale.ROOT);
    if (lower.equals("memory")) {
      return new MemoryStore();
    }
    if (lower.startsWith("postgresql://") || lower.startsWith("postgres://") || lower.startsWith("jdbc:postgresql:")) {
      return PostgresOpener.open(kind);
    }
    if (!lower.equals("redis") && !lower.startsWith("redis://")) {
      throw new BadInputException("-store: unknown store '" + store + "'; use redis, postgresql://... or memory");
    }
    List<String> addrs = Arrays.stream(redisAddrs.split(",")).map(String::trim).filter(a -> !a.isEmpty()).toList();
    if (lower.startsWith("redis://")) {
      addrs = List.of(kind.substring("redis://".length()));
    }
    if (addrs.isEmpty()) {
      throw new BadInputException("-redis-addrs: no address given");
    }
    List<String> cas = Arrays.stream(redisRootCaCerts.split(",")).map(String::trim).filter(a -> !a.isEmpty()).toList();
    try {
      return RedisStore.connect(
          RedisStoreConfig.builder(addrs)
              .password(redisPass.isEmpty() ? null : redisPass)
              .tls(redisTls)
              .caPemFiles(cas.stream().map(java.nio.file.Path::of).toList())
              .clientName(clientName)
              .build());
    } catch (RuntimeException e) {
      throw new BadInputException("cannot connect to Redis at " + String.join(",", addrs) + ": " + e.getMessage());
    }
  }
}
