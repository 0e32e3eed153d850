package io.allot.worker;

import io.allot.store.Lease;
import io.allot.store.MemberRecord;
import io.allot.store.Ownership;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * A test double of a store failure: delegates to a real store, and can be switched to fail every call with
 * {@link StoreUnavailableException} (DOWN) or to block every call until switched back (HANG: a partition where
 * requests time out late). Subscriptions stay active (pub/sub is only a hint anyway).
 */
final class FlakyStore implements Store {
  enum Mode { UP, DOWN, HANG }

  private final Store delegate;
  private volatile Mode mode = Mode.UP;
  private final Object gate = new Object();
  /** The store time of every registration that went through. */
  final List<Long> registerStoreTimes = new java.util.concurrent.CopyOnWriteArrayList<>();

  FlakyStore(Store delegate) {
    this.delegate = delegate;
  }

  void mode(Mode m) {
    synchronized (gate) {
      mode = m;
      gate.notifyAll();
    }
  }

  private void check() {
    Mode m = mode;
    if (m == Mode.DOWN) {
      throw new StoreUnavailableException("test: store switched off");
    }
    if (m == Mode.HANG) {
      synchronized (gate) {
        while (mode == Mode.HANG) {
          try {
            gate.wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("test: interrupted while hanging");
          }
        }
      }
      if (mode == Mode.DOWN) {
        throw new StoreUnavailableException("test: store switched off");
      }
      // a request that hung "timed out" on the client: the caller cannot know if it was applied
      throw new StoreUnavailableException("test: request timed out");
    }
  }

  @Override public List<String> list(String key) { check(); return delegate.list(key); }
  @Override public boolean addToList(String key, String value) { check(); return delegate.addToList(key, value); }
  @Override public boolean removeFromList(String key, String value) { check(); return delegate.removeFromList(key, value); }
  @Override public Map<String, String> hash(String key) { check(); return delegate.hash(key); }
  @Override public String hashField(String key, String field) { check(); return delegate.hashField(key, field); }
  @Override public void replaceList(String key, List<String> values) { check(); delegate.replaceList(key, values); }
  @Override public long timeMillis() { check(); return delegate.timeMillis(); }
  @Override public Optional<Lease> tryAcquire(String name, String holder, Duration ttl) { check(); return delegate.tryAcquire(name, holder, ttl); }
  @Override public boolean renew(Lease lease, Duration ttl) { check(); return delegate.renew(lease, ttl); }
  @Override public void release(Lease lease) { check(); delegate.release(lease); }
  @Override public Optional<Lease> currentLeader(String name) { check(); return delegate.currentLeader(name); }
  @Override public long publish(Lease lease, String hashKey, String group, Map<String, String> fields) { check(); return delegate.publish(lease, hashKey, group, fields); }
  @Override public long epoch(String hashKey) { check(); return delegate.epoch(hashKey); }
  @Override public long register(String pool, String id, int affinity, int capacity, Duration ttl) {
    check();
    registerStoreTimes.add(delegate.timeMillis());
    return delegate.register(pool, id, affinity, capacity, ttl);
  }
  @Override public boolean renewMember(String pool, String id, long session, Duration ttl) { check(); return delegate.renewMember(pool, id, session, ttl); }
  @Override public boolean updateMember(String pool, String id, long session, int affinity, int capacity) { check(); return delegate.updateMember(pool, id, session, affinity, capacity); }
  @Override public void deregister(String pool, String id, long session) { check(); delegate.deregister(pool, id, session); }
  @Override public Map<String, MemberRecord> members(String pool) { check(); return delegate.members(pool); }
  @Override public OptionalLong claim(String pool, String unit, String member, long session) { check(); return delegate.claim(pool, unit, member, session); }
  @Override public boolean releaseUnit(String pool, String unit, String member, long token) { check(); return delegate.releaseUnit(pool, unit, member, token); }
  @Override public Map<String, Ownership> owners(String pool) { check(); return delegate.owners(pool); }
  @Override public boolean validToken(String pool, String unit, long token) { check(); return delegate.validToken(pool, unit, token); }
  @Override public Subscription subscribe(String channel, Consumer<String> listener) { return delegate.subscribe(channel, listener); }
  @Override public void notify(String channel, String message) { check(); delegate.notify(channel, message); }
  @Override public void close() { /* the test owns the delegate */ }
}
