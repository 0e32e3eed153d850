package io.allot.spring;

import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The allot.* settings. Names follow the flags of bin/allot worker and bin/allot job worker
 * (--pool is allot.worker.pool, --distribution-namespace is
 * allot.worker.distribution-namespace, ...). A setting left out keeps the SDK's default. An immutable value.
 *
 * @param store the store URI: memory:, redis://host:6379, rediss://...,
 *              redis-cluster://h1:p1,h2:p2, postgresql://user:pass@host:5432/db; without it (and
 *              without a Store bean of the application's) nothing of allot starts
 * @param worker the member that runs the application's UnitHandler (and whose settings a task member shares)
 * @param tasks the member that runs the application's TaskHandler
 * @param jobs per JobHandler bean name: its queue and worker settings
 * @param api the task management API (allot server's /api/v1, /healthz, /metrics) served inside the application
 * @param reuseConnections whether the store goes through the application's DataSource (allot.store unset or
 *              postgresql://...) or Lettuce RedisClient (allot.store redis://...) when it has one; default true
 */
@ConfigurationProperties("allot")
public record AllotProperties(
    String store,
    @DefaultValue WorkerSettings worker,
    @DefaultValue TaskSettings tasks,
    Map<String, JobSettings> jobs,
    @DefaultValue ApiSettings api,
    @DefaultValue("true") boolean reuseConnections) {

  /** The settings; jobs never null. */
  public AllotProperties {
    jobs = jobs == null ? Map.of() : Map.copyOf(jobs);
  }

  /**
   * One member of a pool (a Divider).
   *
   * @param pool the services list (pool) this member joins, one of the distributor's -services-namespaces;
   *             with a UnitHandler bean it starts the worker
   * @param host the host the distributor reaches this member on, the first part of the member id; default: an
   *             address other hosts can reach
   * @param port the gRPC port of the pings (unless they go on the application's gRPC server); 0 (the default) picks a
   *             free one
   * @param distributionNamespace the distribution hash key, as the distributor's; default sys-matching-table
   * @param affinity the initial affinity (weight); 0 = no units; default 1
   * @param capacity the most units owned at once; default unlimited
   * @param version the software version published with the member (routing reads it)
   * @param zone the zone published with the member
   * @param labels attributes published with the member
   * @param leaseTtl the member lease; default 1000ms
   * @param renewEvery the lease renewal period; default 100ms
   * @param fenceMargin self-fence this long before the lease could expire; default 200ms
   * @param syncInterval the full reconciliation period; default 500ms
   * @param maxConcurrentMoves the cap on units stopping (being handed over) at once; default 32
   * @param claimBatch units claimed per round, in one store round trip; default 64
   * @param shutdownGrace how long leaving waits for the units' stops to be confirmed; default 5s
   * @param drainTimeout on shutdown, how long the member drains (affinity 0, every unit handed over) before it leaves
   * @param pingsOnAppServer when the application runs Spring Boot's gRPC server: answer the distributor's pings on
   *                         it (the member id's port is that server's; port is then unused) rather than on a port of
   *                         the member's own; default true
   */
  public record WorkerSettings(
      String pool,
      String host,
      @DefaultValue("0") int port,
      String distributionNamespace,
      Integer affinity,
      Integer capacity,
      String version,
      String zone,
      Map<String, String> labels,
      Duration leaseTtl,
      Duration renewEvery,
      Duration fenceMargin,
      Duration syncInterval,
      Integer maxConcurrentMoves,
      Integer claimBatch,
      Duration shutdownGrace,
      @DefaultValue("10s") Duration drainTimeout,
      @DefaultValue("true") boolean pingsOnAppServer) {

    /** The settings; labels never null. */
    public WorkerSettings {
      labels = labels == null ? Map.of() : Map.copyOf(labels);
    }
  }

  /**
   * The member that runs long-running tasks (TaskRunner); host, distribution hash, lease and shutdown settings
   * are those of allot.worker.*.
   *
   * @param pool the pool whose task specs this member runs; with a TaskHandler bean it starts the runner
   * @param port the gRPC port of this member's pings; 0 (the default) picks a free one
   * @param capacity the most task cost owned at once: a number, or auto (the default) = min(CPUs x 100, max
   *                 heap MiB / 8)
   */
  public record TaskSettings(String pool, @DefaultValue("0") int port, @DefaultValue("auto") String capacity) {}

  /**
   * The worker of one JobHandler bean (allot.jobs.<bean name>.*).
   *
   * @param queue the queue it takes jobs from; default: the bean's @JobQueueName, else the bean's name
   * @param concurrency handler threads; default 4
   * @param batchSize most jobs per claim; default 256 (JobWorker.AUTO_MAX_BATCH)
   * @param prefetch jobs claimed ahead, waiting for a thread or their report; default adaptive (from the handlers'
   *                 run time and the store's round trips, up to 512: large for many short jobs, 1 for long ones)
   * @param lockTtl the lock of a claimed job, extended while its handler runs; default 30s
   * @param pollInterval the wait after a claim that found nothing; default 500ms
   * @param drainTimeout on shutdown, how long running handlers may finish; default 20s (under Spring's 30 s shutdown
   *                     phase)
   * @param rateLimit jobs per second over every worker of the queue, kept in the store; default none
   */
  public record JobSettings(
      String queue,
      Integer concurrency,
      Integer batchSize,
      Integer prefetch,
      Duration lockTtl,
      Duration pollInterval,
      @DefaultValue("20s") Duration drainTimeout,
      Double rateLimit) {

    /** The settings of a handler bean that has no allot.jobs.<bean name> entry. */
    public static final JobSettings DEFAULTS = new JobSettings(null, null, null, null, null, null, Duration.ofSeconds(20), null);
  }

  /**
   * The task management API of bin/allot server inside the application (needs allot-server on the class
   * path): /api/v1/... (ApiHandler and the route groups table, units, weights, queues), /ui, /healthz, /version and
   * /metrics on Jetty (OpsHttpServer).
   *
   * @param enabled whether to serve it; default false
   * @param port its HTTP port; default 9091 (allot server's 9090 is Spring gRPC's default port); 0 picks a free one
   * @param token the bearer token of role write (reads and writes), as allot server's -api-token; with no token
   *              at all (this, read-token, tokens-file) writes are accepted from loopback only
   * @param pools the pools whose tasks it serves; default: every pool
   * @param openWrites without any token, accept writes from every address (default false: loopback only)
   * @param readToken a bearer token of role read, as -api-read-token: reads then need a token too; needs token
   *              or tokens-file (someone must be able to write) and must differ from token
   * @param tokensFile a file of named tokens, one "name role token" a line (role read or write), as -api-tokens;
   *              looked at again every second and reloaded when changed (tokens added and revoked without a restart)
   * @param unitsList the units list (a distributor's -workunits-namespace) the units routes edit; default none
   * @param tls HTTPS instead of plain HTTP
   */
  public record ApiSettings(
      @DefaultValue("false") boolean enabled,
      @DefaultValue("9091") int port,
      @DefaultValue("") String token,
      java.util.List<String> pools,
      @DefaultValue("false") boolean openWrites,
      @DefaultValue("") String readToken,
      String tokensFile,
      String unitsList,
      @DefaultValue TlsSettings tls) {

    /** The settings; pools never null. */
    public ApiSettings {
      pools = pools == null ? java.util.List.of() : java.util.List.copyOf(pools);
    }
  }

  /**
   * The API port's TLS from PEM files (allot-tls PemTls), as allot server's -tls-cert, -tls-key, -tls-client-ca;
   * rotated files are served from the next handshake on.
   *
   * @param cert the server certificate (chain), PEM; with key: HTTPS; without both (the default): plain HTTP
   * @param key the certificate's private key, PEM
   * @param clientCa the roots of the client certificates every client must show (mutual TLS); default none
   * @param reload how often the files are looked at again; default 5s
   */
  public record TlsSettings(String cert, String key, String clientCa, @DefaultValue("5s") Duration reload) {}
}
