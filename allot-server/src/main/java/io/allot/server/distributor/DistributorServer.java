package io.allot.server.distributor;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Assigners;
import io.allot.server.ping.Pinger;
import io.allot.store.Store;
import io.allot.store.Subscription;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link GroupDistributor} per services namespace, each on its own thread, every
 * poll-interval and whenever the store announces a change. Closing it stops the loops and
 * releases leadership, so a standby takes over at once instead of after the lease TTL.
 */
public final class DistributorServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DistributorServer.class);

  /** Channel on which members and tools announce that a services or units list changed. */
  public static String changesChannel(String key) {
    return "allot:changes:" + key;
  }

  private final Store store;
  private final DistributorSettings settings;
  private final Pinger pinger;
  private final List<GroupDistributor> groups = new ArrayList<>();
  private final List<ScheduledExecutorService> loops = new ArrayList<>();
  private final List<Subscription> subscriptions = new ArrayList<>();
  private final ConcurrentHashMap<String, AtomicBoolean> pending = new ConcurrentHashMap<>();
  private final String holder;
  private volatile boolean closed;

  public DistributorServer(
      Store store, DistributorSettings settings, MeterRegistry registry, BiConsumer<String, GroupDistributor.Published> onPublish) {
    this.store = store;
    this.settings = settings;
    this.pinger = new Pinger(settings.pingMode(), settings.pingTimeout());
    this.holder = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID().toString().substring(0, 8);
    Assigner assigner = Assigners.byName(settings.strategy());
    for (String g : settings.servicesNamespaces()) {
      groups.add(new GroupDistributor(store, pinger, assigner, settings, g, holder, registry, onPublish));
    }
  }

  /** Starts the loops; returns this. */
  public DistributorServer start() {
    for (GroupDistributor g : groups) {
      ScheduledExecutorService loop =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "allot-distributor-" + g.group());
                t.setDaemon(true);
                return t;
              });
      loops.add(loop);
      AtomicBoolean flag = new AtomicBoolean();
      pending.put(g.group(), flag);
      loop.scheduleWithFixedDelay(() -> runCycle(g, flag), 0, settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
      Runnable trigger =
          () -> {
            if (!closed && flag.compareAndSet(false, true)) {
              loop.execute(() -> runCycle(g, flag));
            }
          };
      try {
        subscriptions.add(store.subscribe(changesChannel(g.group()), m -> trigger.run()));
        subscriptions.add(store.subscribe(changesChannel(settings.workunitsNamespace()), m -> trigger.run()));
        subscriptions.add(store.subscribe(Store.membersChannel(g.group()), m -> trigger.run()));
        // Redis keyspace notifications, when the server has them on (notify-keyspace-events Kl or KA)
        subscriptions.add(store.subscribe("__keyspace@0__:" + g.group(), m -> trigger.run()));
        subscriptions.add(store.subscribe("__keyspace@0__:" + settings.workunitsNamespace(), m -> trigger.run()));
      } catch (RuntimeException e) {
        log.warn("change notifications unavailable ({}); relying on -poll-interval", e.toString());
      }
    }
    log.info(
        "distributor started holder={} groups={} strategy={} poll={}ms ping-timeout={}ms down-after={} leader-ttl={}ms",
        holder, settings.servicesNamespaces(), settings.strategy(), settings.pollInterval().toMillis(),
        settings.pingTimeout().toMillis(), settings.downAfter(), settings.leaderTtl().toMillis());
    return this;
  }

  private final ConcurrentHashMap<String, java.util.concurrent.ScheduledFuture<?>> wakeups = new ConcurrentHashMap<>();

  private void runCycle(GroupDistributor g, AtomicBoolean flag) {
    flag.set(false);
    if (closed) {
      return;
    }
    g.cycle();
    long wait = g.millisToNextLeaseExpiry();
    if (wait < settings.pollInterval().toMillis()) {
      ScheduledExecutorService loop = loops.get(groups.indexOf(g));
      java.util.concurrent.ScheduledFuture<?> f =
          loop.schedule(() -> runCycle(g, flag), Math.max(wait, 0) + 5, TimeUnit.MILLISECONDS);
      java.util.concurrent.ScheduledFuture<?> old = wakeups.put(g.group(), f);
      if (old != null) {
        old.cancel(false);
      }
    }
  }

  public List<GroupDistributor> groups() {
    return groups;
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
      GroupDistributor g = groups.get(i);
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
