package io.allot.server.distributor;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Assigners;
import io.allot.server.ping.Pinger;
import io.allot.store.Store;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link PoolDistributor} per services namespace, each on its own thread: a poll round ({@link
 * PoolDistributor#cycle()}, pings included) every poll-interval, and a change round ({@link
 * PoolDistributor#react()}, no pings of known members) at once whenever the store announces a change (a member
 * registered, changed its metadata or left; a services or units list changed) and at the pool's next lease or hold
 * end ({@link PoolDistributor#millisToNextChange()}: a dead worker's units move the moment they can be claimed).
 * Announcements arriving while a round runs are coalesced into one round after it. Closing it stops the loops and releases leadership, so a standby takes over at once
 * instead of after the lease TTL.
 */
public final class DistributorServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DistributorServer.class);

  private final Store store;
  private final DistributorSettings settings;
  private final Pinger pinger;
  private final List<PoolDistributor> pools = new ArrayList<>();
  // filled by start() and read by close(): call them one after the other
  private final List<ScheduledExecutorService> loops = new ArrayList<>();
  private final List<Subscription> subscriptions = new ArrayList<>();
  /** The pending early round of each pool (at its next lease or hold end); written by its loop thread. */
  private final ConcurrentHashMap<String, ScheduledFuture<?>> wakeups = new ConcurrentHashMap<>();
  private final String holder;
  private volatile boolean closed;

  public DistributorServer(
      Store store, DistributorSettings settings, MeterRegistry registry, BiConsumer<String, PoolDistributor.Published> onPublish) {
    this(store, settings, registry, onPublish, null);
  }

  /** As the other constructor, pinging members over channels with {@code pingCredentials} (null: plain text). */
  public DistributorServer(Store store, DistributorSettings settings, MeterRegistry registry,
      BiConsumer<String, PoolDistributor.Published> onPublish, io.grpc.ChannelCredentials pingCredentials) {
    this.store = store;
    this.settings = settings;
    this.pinger = new Pinger(settings.pingMode(), settings.pingTimeout(), pingCredentials);
    this.holder = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID().toString().substring(0, 8);
    Assigner assigner = Assigners.byName(settings.strategy());
    for (String g : settings.servicesNamespaces()) {
      pools.add(new PoolDistributor(store, pinger, assigner, settings, g, holder, registry, onPublish));
    }
  }

  /** Starts the loops; returns this. */
  public DistributorServer start() {
    for (PoolDistributor g : pools) {
      ScheduledExecutorService loop =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "allot-distributor-" + g.pool());
                t.setDaemon(true);
                return t;
              });
      loops.add(loop);
      AtomicBoolean flag = new AtomicBoolean();
      loop.scheduleWithFixedDelay(() -> runCycle(g, loop, flag, true), 0, settings.pollInterval().toMillis(),
          TimeUnit.MILLISECONDS);
      Runnable trigger =
          () -> {
            if (!closed && flag.compareAndSet(false, true)) {
              loop.execute(() -> runCycle(g, loop, flag, false));
            }
          };
      g.pingInBackground(trigger); // a completed ping round runs a round: its verdicts count at once
      try {
        // a services or units list changed (the Redis store also maps these to keyspace notifications, when the
        // server has them on), or a registered member joined, changed or left
        subscriptions.add(store.notifications().subscribe(Topic.key(g.pool()), m -> trigger.run()));
        subscriptions.add(store.notifications().subscribe(Topic.key(settings.workunitsNamespace()), m -> {
          g.unitsChanged();
          trigger.run();
        }));
        subscriptions.add(store.notifications().subscribe(Topic.members(g.pool()), m -> trigger.run()));
        // a long-running task spec of the pool was created, changed or deleted: its live specs are its units
        subscriptions.add(store.notifications().subscribe(Topic.taskSpecs(g.pool()), m -> {
          g.unitsChanged();
          trigger.run();
        }));
      } catch (RuntimeException e) {
        log.warn("change notifications unavailable ({}); relying on -poll-interval", e.toString());
      }
    }
    log.info(
        "distributor started holder={} pools={} strategy={} poll={}ms ping-timeout={}ms down-after={} leader-ttl={}ms",
        holder, settings.servicesNamespaces(), settings.strategy(), settings.pollInterval().toMillis(),
        settings.pingTimeout().toMillis(), settings.downAfter(), settings.leaderTtl().toMillis());
    return this;
  }

  private void runCycle(PoolDistributor g, ScheduledExecutorService loop, AtomicBoolean flag, boolean poll) {
    flag.set(false);
    if (closed) {
      return;
    }
    if (poll) {
      g.cycle();
    } else {
      g.react();
    }
    long wait = g.millisToNextChange(); // a lease ends (its units become claimable) or a hold runs out
    if (wait < settings.pollInterval().toMillis()) {
      ScheduledFuture<?> f = loop.schedule(() -> runCycle(g, loop, flag, false), wait + 1, TimeUnit.MILLISECONDS);
      ScheduledFuture<?> old = wakeups.put(g.pool(), f);
      if (old != null) {
        old.cancel(false);
      }
    }
  }

  public List<PoolDistributor> pools() {
    return pools;
  }

  /**
   * The members of {@code pool} judged by pings (no member record) to whether they were live at its last round;
   * empty for a pool this server does not lead or serve ({@link PoolDistributor#pingVerdicts()}). Any thread.
   */
  public java.util.Map<String, Boolean> pingVerdicts(String pool) {
    for (PoolDistributor g : pools) {
      if (g.pool().equals(pool)) {
        return g.pingVerdicts();
      }
    }
    return java.util.Map.of();
  }

  public String holder() {
    return holder;
  }

  @Override
  public void close() {
    closed = true;
    subscriptions.forEach(s -> {
      try {
        s.close();
      } catch (RuntimeException e) {
        log.debug("closing subscription: {}", e.toString());
      }
    });
    for (int i = 0; i < loops.size(); i++) {
      ScheduledExecutorService loop = loops.get(i);
      PoolDistributor g = pools.get(i);
      loop.shutdown();
      try {
        loop.awaitTermination(settings.pingTimeout().toMillis() + 2000, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      g.release();
    }
    pinger.close();
  }
}
