package io.allot.route;

import io.allot.store.MemberMeta;
import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.StatusOr;
import io.grpc.SynchronizationContext;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code allot://<pool>} resolver: reads the pool's members, its assignment table and its live canary weights
 * from the store, and pushes them to the channel whenever they change.
 *
 * <p><b>Who is live.</b> A member with a record is live while its lease, plus the store's clock margin, has not ended
 * by the store's clock: the distributor's rule, so the resolver and the table agree on who is there. A services-list
 * entry without a record (an original-style service) is listed with default metadata; its subchannel's state tells
 * whether it answers.
 *
 * <p><b>When.</b> A sync runs at once on every notification of {@link Topic#members}, {@link Topic#key} (the services
 * list), {@link Topic#table} of the table key and {@link Topic#routeWeights} of the pool; when the next live lease
 * ends (no one announces a lease running out); and every sync interval as the fallback for lost notifications. Syncs
 * are coalesced: a burst of notifications costs one or two reads. A result is pushed only when something changed.
 *
 * <p>Threads: store reads run on the resolver's own single thread (never the store's notification thread, never the
 * channel's), results are handed to the listener on the channel's synchronization context.
 */
final class AllotNameResolver extends NameResolver {
  private static final Logger log = LoggerFactory.getLogger(AllotNameResolver.class);

  private final AllotNameResolverProvider.Target target;
  private final String storeUri; // null: the store was given and is not ours
  private final Duration interval;
  private final SynchronizationContext syncContext;
  private final ScheduledExecutorService executor;
  /** Set when a sync is queued and not started yet: coalesces notifications. */
  private final AtomicBoolean pending = new AtomicBoolean();

  /** Written once by start (channel thread), then read by the executor thread. */
  private volatile Listener2 listener;
  private volatile boolean shutdown;

  // confined to the executor thread
  private Store store;
  private final List<Subscription> subscriptions = new ArrayList<>();
  private Snapshot last;
  private boolean errorReported;
  /** Whether the pool had a record or a list entry at any sync: a pool that empties is then known, not unknown. */
  private boolean everKnown;
  private ScheduledFuture<?> leaseTimer;
  private long leaseTimerAt = Long.MAX_VALUE;
  /** Each address's authority is its member id ({@link AllotNameResolverProvider#MEMBER_AUTHORITY}); set before start. */
  boolean memberAuthority;

  AllotNameResolver(AllotNameResolverProvider.Target target, Store store, String storeUri, Duration interval,
      SynchronizationContext syncContext) {
    this.target = target;
    this.store = store;
    this.storeUri = storeUri;
    this.interval = interval;
    this.syncContext = Objects.requireNonNull(syncContext, "syncContext");
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "allot-resolver-" + target.pool());
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public String getServiceAuthority() {
    return target.pool();
  }

  @Override
  public void start(Listener2 listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
    executor.execute(this::open);
    long ms = Math.max(10, interval.toMillis());
    executor.scheduleWithFixedDelay(this::periodic, ms, ms, TimeUnit.MILLISECONDS);
  }

  @Override
  public void refresh() {
    requestSync();
  }

  @Override
  public void shutdown() {
    if (shutdown) {
      return;
    }
    shutdown = true;
    executor.execute(() -> {
      subscriptions.forEach(Subscription::close);
      subscriptions.clear();
      if (storeUri != null && store != null) {
        store.close();
      }
    });
    executor.shutdown();
  }

  /** Queues one sync unless one is queued already. Any thread. */
  private void requestSync() {
    if (!shutdown && pending.compareAndSet(false, true)) {
      try {
        executor.execute(this::sync);
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        // shut down meanwhile
      }
    }
  }

  private void periodic() {
    if (store == null || subscriptions.isEmpty()) {
      open();
    } else {
      sync();
    }
  }

  /** Opens the store (if ours) and subscribes; then syncs. Executor thread. */
  private void open() {
    if (shutdown) {
      return;
    }
    try {
      if (store == null) {
        store = Stores.open(storeUri);
      }
      if (subscriptions.isEmpty()) {
        for (Topic t : List.of(Topic.members(target.pool()), Topic.key(target.pool()),
            Topic.table(target.tableKey()), Topic.routeWeights(target.pool()))) {
          subscriptions.add(store.notifications().subscribe(t, m -> requestSync()));
        }
      }
    } catch (RuntimeException e) {
      subscriptions.forEach(Subscription::close);
      subscriptions.clear();
      report(Status.UNAVAILABLE.withDescription("allot: target '" + target.text() + "': cannot open store "
          + (storeUri == null ? store.describe() : "'" + Stores.redact(storeUri) + "'") + ": " + e.getMessage())
          .withCause(e));
      return;
    }
    sync();
  }

  /** Reads the pool and pushes the result if it changed. Executor thread. */
  private void sync() {
    pending.set(false);
    if (shutdown || store == null) {
      return;
    }
    Snapshot next;
    try {
      next = read();
    } catch (RuntimeException e) {
      log.debug("allot resolver {}: sync failed", target.text(), e);
      report(Status.UNAVAILABLE.withDescription("allot: target '" + target.text() + "': cannot read pool '"
          + target.pool() + "' from store " + store.describe() + ": " + e.getMessage()).withCause(e));
      return;
    }
    scheduleLeaseEnd(next.millisToNextLeaseEnd());
    if (next.equals(last) && !errorReported) {
      return;
    }
    everKnown |= next.known();
    if (next.members().isEmpty() && !everKnown) {
      last = next;
      report(Status.UNAVAILABLE.withDescription("allot: target '" + target.text() + "': pool '" + target.pool()
          + "' is unknown in store " + store.describe() + ": no member record and no services list entry"));
      return;
    }
    // a known pool without a live member resolves to no address: allot's policies then fail calls at once (and
    // drop their subchannels), where an error would let a policy keep routing to the members that left
    last = next;
    errorReported = false;
    ResolutionResult result = next.toResult(memberAuthority);
    Listener2 l = listener;
    syncContext.execute(() -> {
      if (!shutdown) {
        l.onResult2(result);
      }
    });
  }

  private void report(Status status) {
    errorReported = true;
    Listener2 l = listener;
    syncContext.execute(() -> {
      if (!shutdown) {
        l.onError(status);
      }
    });
  }

  /** Runs one more sync when the next live lease ends (plus 1 ms), unless one is due earlier. */
  private void scheduleLeaseEnd(long millis) {
    if (millis == Long.MAX_VALUE) {
      return;
    }
    long at = System.nanoTime() / 1_000_000 + millis + 1;
    if (leaseTimer != null && !leaseTimer.isDone() && leaseTimerAt <= at) {
      return;
    }
    if (leaseTimer != null) {
      leaseTimer.cancel(false);
    }
    leaseTimerAt = at;
    leaseTimer = executor.schedule(this::requestSync, millis + 1, TimeUnit.MILLISECONDS);
  }

  /** One read of the pool. */
  private Snapshot read() {
    LiveMembers lm = LiveMembers.read(store, target.pool());
    RouteTable table = RouteTable.read(store.tables(), target.tableKey());
    Map<String, Integer> weights = LiveWeights.read(store, target.pool());
    TreeMap<String, MemberMeta> live = new TreeMap<>(lm.members());
    live.keySet().removeIf(id -> {
      if (address(id) == null) {
        log.warn("allot resolver {}: member '{}' is not host:port; skipped", target.text(), id);
        return true;
      }
      return false;
    });
    return new Snapshot(live, table, weights, lm.known(), lm.millisToNextLeaseEnd());
  }

  /** {@code host:port} (IPv6 as {@code [addr]:port}) as an address, or null if it is not one. */
  static InetSocketAddress address(String id) {
    int colon = id.lastIndexOf(':');
    if (colon <= 0 || colon == id.length() - 1) {
      return null;
    }
    String host = id.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      int port = Integer.parseInt(id.substring(colon + 1));
      if (port < 1 || port > 65535) {
        return null;
      }
      return new InetSocketAddress(host, port);
    } catch (NumberFormatException | SecurityException e) {
      return null;
    }
  }

  /**
   * What one sync read; equal snapshots are not pushed again.
   *
   * @param members              live member id to its metadata, sorted
   * @param table                the assignment table
   * @param weights              the live canary weights
   * @param known                whether the pool has any record or list entry at all
   * @param millisToNextLeaseEnd store ms until the next live lease ends (not part of equality)
   */
  record Snapshot(TreeMap<String, MemberMeta> members, RouteTable table, Map<String, Integer> weights, boolean known,
      long millisToNextLeaseEnd) {

    @Override
    public boolean equals(Object o) {
      return o instanceof Snapshot s && s.members.equals(members) && s.table.equals(table)
          && s.weights.equals(weights) && s.known == known;
    }

    @Override
    public int hashCode() {
      return Objects.hash(members, table.epoch(), weights);
    }

    ResolutionResult toResult(boolean memberAuthority) {
      List<EquivalentAddressGroup> groups = new ArrayList<>(members.size());
      members.forEach((id, meta) -> {
        Attributes.Builder a = Attributes.newBuilder()
            .set(AllotRouting.MEMBER_ID, id)
            .set(AllotRouting.WEIGHT, meta.affinity())
            .set(AllotRouting.LABELS, meta.attributes())
            .set(AllotRouting.TABLE_EPOCH, table.epoch());
        if (meta.version() != null) {
          a.set(AllotRouting.VERSION, meta.version());
        }
        if (meta.zone() != null) {
          a.set(AllotRouting.ZONE, meta.zone());
        }
        if (memberAuthority) {
          a.set(EquivalentAddressGroup.ATTR_AUTHORITY_OVERRIDE, id);
        }
        groups.add(new EquivalentAddressGroup(address(id), a.build()));
      });
      return ResolutionResult.newBuilder()
          .setAddressesOrError(StatusOr.fromValue(groups))
          .setAttributes(Attributes.newBuilder()
              .set(AllotRouting.TABLE, table)
              .set(AllotRouting.LIVE_WEIGHTS, weights)
              .build())
          .build();
    }
  }
}
