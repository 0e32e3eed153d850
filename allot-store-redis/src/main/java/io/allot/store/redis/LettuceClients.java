package io.allot.store.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Lettuce settings from a {@link RedisStoreConfig}: server URIs, client options (reconnect, TLS), resources. */
final class LettuceClients {
  private LettuceClients() {}

  /** The Lettuce URI of one server: address, credentials, database, TLS, client name, command timeout. */
  static RedisURI uri(String address, RedisStoreConfig c) {
    RedisAddress a = RedisAddress.parse(address);
    RedisURI.Builder b = RedisURI.builder().withHost(a.host()).withPort(a.port()).withTimeout(c.commandTimeout())
        .withDatabase(c.database());
    if (c.password() != null) {
      if (c.username() != null) {
        b.withAuthentication(c.username(), c.password());
      } else {
        b.withPassword(c.password().toCharArray());
      }
    }
    if (c.tls()) {
      b.withSsl(true).withVerifyPeer(SslVerifyMode.valueOf(c.tlsVerify().name()));
    }
    if (c.clientName() != null) {
      b.withClientName(c.clientName());
    }
    return b.build();
  }

  /**
   * Client options: auto-reconnect, {@code REJECT_COMMANDS} while disconnected (which also drops commands in flight
   * instead of replaying them), a bounded request queue, fixed command timeouts, TLS trust; for Cluster, topology
   * refresh on redirects and periodically.
   *
   * @throws IllegalArgumentException if a CA file cannot be read
   */
  static ClientOptions options(RedisStoreConfig c) {
    ClientOptions.Builder b = c.cluster() ? ClusterClientOptions.builder()
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enablePeriodicRefresh(Duration.ofSeconds(15))
            .enableAdaptiveRefreshTrigger(RefreshTrigger.MOVED_REDIRECT, RefreshTrigger.ASK_REDIRECT,
                RefreshTrigger.PERSISTENT_RECONNECTS, RefreshTrigger.UNCOVERED_SLOT, RefreshTrigger.UNKNOWN_NODE)
            .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(5))
            .build())
        .maxRedirects(5) : ClientOptions.builder();
    b.autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .requestQueueSize(c.requestQueueSize())
        .pingBeforeActivateConnection(true)
        .socketOptions(SocketOptions.builder().connectTimeout(c.connectTimeout()).keepAlive(true).build())
        .timeoutOptions(TimeoutOptions.builder().fixedTimeout(c.commandTimeout()).build());
    if (c.tls()) {
      b.sslOptions(sslOptions(c));
    }
    return b.build();
  }

  /** Two I/O and two computation threads, and the reconnect backoff. */
  static ClientResources resources(RedisStoreConfig c) {
    return DefaultClientResources.builder()
        .ioThreadPoolSize(2)
        .computationThreadPoolSize(2)
        .reconnectDelay(Delay.exponential(c.reconnectDelayMin(), c.reconnectDelayMax(), 2, TimeUnit.MILLISECONDS))
        .build();
  }

  private static SslOptions sslOptions(RedisStoreConfig c) {
    SslOptions.Builder b = SslOptions.builder().jdkSslProvider();
    if (!c.caPemFiles().isEmpty()) {
      ByteArrayOutputStream pem = new ByteArrayOutputStream();
      for (Path file : c.caPemFiles()) {
        try {
          pem.write(Files.readAllBytes(file));
          pem.write('\n');
        } catch (IOException e) {
          throw new IllegalArgumentException("cannot read CA file " + file + ": " + e, e);
        }
      }
      byte[] bytes = pem.toByteArray();
      b.trustManager(() -> new ByteArrayInputStream(bytes));
    }
    return b.build();
  }
}
