package io.allot.worker;

import io.allot.store.MemberMeta;
import io.allot.store.Membership;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the member publishes about itself ({@link MemberMeta}): the affinity, which the application changes at any
 * time, and the capacity and attributes (version, zone, ...), fixed at build time and kept across affinity changes.
 * Lock-free: the affinity is an atomic, and a version number bumped after every change tells whether the store has
 * the latest value; the loop publishes it with {@link Membership#update} when it has not (the latest value always
 * wins, since the value is read after the version).
 */
final class PublishedMeta {
  private static final Logger log = LoggerFactory.getLogger(PublishedMeta.class);

  /** Capacity and attributes (the affinity in it is only the initial one). Immutable. */
  private final MemberMeta fixed;
  /** Atomic; any thread. */
  private final AtomicInteger affinity;
  /** Atomic; bumped after every affinity change. */
  private final AtomicLong version = new AtomicLong();
  /** Atomic; the highest version the store acknowledged (at registration or by an update). */
  private final AtomicLong published = new AtomicLong(-1);

  PublishedMeta(MemberMeta initial) {
    this.fixed = initial;
    this.affinity = new AtomicInteger(initial.affinity());
  }

  int affinity() {
    return affinity.get();
  }

  int capacity() {
    return fixed.capacity();
  }

  /** The metadata to publish now. */
  MemberMeta current() {
    return fixed.withAffinity(affinity.get());
  }

  /** Sets the affinity; returns the previous one. */
  int set(int value) {
    int previous = affinity.getAndSet(value);
    version.incrementAndGet();
    return previous;
  }

  /** Applies {@code f} atomically (it may throw, changing nothing); returns the new affinity. */
  int update(IntUnaryOperator f) {
    int next = affinity.updateAndGet(f);
    version.incrementAndGet();
    return next;
  }

  /** A registration is about to publish the metadata: the version it will carry (read before the value). */
  long versionToPublish() {
    return version.get();
  }

  /** The store has the metadata as of {@code v}. */
  void publishedVersion(long v) {
    published.accumulateAndGet(v, Math::max);
  }

  /**
   * Publishes the metadata if it changed since the store last had it; a store call, so never under the state lock.
   * Throws what the store throws (retried next round).
   */
  void publishIfChanged(Membership membership, String memberId, long session) {
    long v = version.get();
    if (v <= published.get()) {
      return;
    }
    MemberMeta meta = current(); // read after the version: at least as new as it
    if (membership.update(memberId, session, meta)) {
      publishedVersion(v);
      log.info("pool={} member={} affinity={} published", membership.pool(), memberId, meta.affinity());
    }
  }
}
