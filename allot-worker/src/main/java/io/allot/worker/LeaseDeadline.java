package io.allot.worker;

import java.util.function.LongSupplier;

/**
 * The arithmetic of the member lease, on the local monotonic clock only (never compared with another host's clock):
 * <ul>
 *   <li><b>Deadline.</b> The store extended the lease to (its now + {@code ttl}) no earlier than the moment the
 *   renewal was <em>sent</em>, so the lease lasts at least until {@code lastRenewSent + ttl}. The member trusts it
 *   until {@code lastRenewSent + ttl - margin} (the fence deadline); {@code margin} is the time the application has
 *   to stop after {@code LEASE_LOST} before another member may claim its units.</li>
 *   <li><b>The old lease's end.</b> After a fence, the old lease may run until {@code lastRenewAcked + ttl} (a renewal
 *   acknowledged at {@code ack} was applied at or before {@code ack}), and the store lets nobody take it over before
 *   its clock margin has passed too: {@link #oldLeaseEndNanos()} = {@code lastRenewAcked + ttl + clockMargin}.
 *   Registering again earlier would conflict with it, and deregistering earlier (a {@code cancel()}) would make its
 *   units claimable before the margin was over.</li>
 *   <li><b>Generation.</b> A number that changes at every registration, fence and shutdown: a unit started under
 *   another generation is stale, and a {@code UnitStart} is delivered only while its generation is current and the
 *   deadline has not passed ({@link #startMayRun(long)}).</li>
 * </ul>
 * Times come from the injected nano clock (tests drive it by hand). Not thread-safe on its own: every write happens
 * under the divider's {@link StateLock}; {@code held}, {@code fenceAtNanos} and {@code generation} are volatile so that
 * {@link #valid()}, {@link #startMayRun(long)} and {@link #generation()} can be read from any thread without it.
 */
final class LeaseDeadline {
  private final long ttlNanos;
  private final long marginNanos;
  private final long clockMarginNanos;
  private final LongSupplier nanoClock;

  /** Written under the state lock; read without it. True from a registration until the fence or shutdown. */
  private volatile boolean held;
  /** Written under the state lock; read without it. {@code lastRenewSent + ttl - margin}. */
  private volatile long fenceAtNanos;
  /** Written under the state lock; read without it. */
  private volatile long generation;
  /** Guarded by the state lock. */
  private long lastRenewSentNanos;
  /** Guarded by the state lock. */
  private long lastRenewAckNanos;
  /** Guarded by the state lock: a fenced lease may still run in the store until {@link #oldLeaseEndNanos()}. */
  private boolean oldLeaseMayRun;

  /**
   * @param ttlNanos         the lease TTL
   * @param marginNanos      the fence margin: the member stops trusting its lease this long before it can expire
   * @param clockMarginNanos the store's clock margin ({@link io.allot.store.Safety#clockMargin()}): how long past its
   *                         expiry a lease must be before the store lets another session take its units
   * @param nanoClock        the local monotonic clock
   */
  LeaseDeadline(long ttlNanos, long marginNanos, long clockMarginNanos, LongSupplier nanoClock) {
    if (marginNanos <= 0 || marginNanos >= ttlNanos) {
      throw new IllegalArgumentException("margin must be in (0, ttl) but was " + marginNanos + " of " + ttlNanos);
    }
    if (clockMarginNanos < 0) {
      throw new IllegalArgumentException("clockMargin must be >= 0 but was " + clockMarginNanos);
    }
    this.ttlNanos = ttlNanos;
    this.marginNanos = marginNanos;
    this.clockMarginNanos = clockMarginNanos;
    this.nanoClock = nanoClock;
  }

  /** The clock's now. */
  long now() {
    return nanoClock.getAsLong();
  }

  /** A registration sent at {@code sent} was acknowledged at {@code ack}: a new lease and a new generation. */
  void registered(long sentNanos, long ackNanos) {
    lastRenewSentNanos = sentNanos;
    lastRenewAckNanos = ackNanos;
    fenceAtNanos = sentNanos + ttlNanos - marginNanos;
    oldLeaseMayRun = false;
    generation++;
    held = true;
  }

  /** A renewal sent at {@code sent} succeeded at {@code ack}. Never moves the deadline back (answers may cross). */
  void renewed(long sentNanos, long ackNanos) {
    if (sentNanos - lastRenewSentNanos > 0) {
      lastRenewSentNanos = sentNanos;
    }
    if (ackNanos - lastRenewAckNanos > 0) {
      lastRenewAckNanos = ackNanos;
    }
    fenceAtNanos = lastRenewSentNanos + ttlNanos - marginNanos;
  }

  /** True while the lease is held and the deadline has not passed. */
  boolean valid() {
    return held && now() - fenceAtNanos < 0;
  }

  /** True if the lease is held but the deadline has passed: the member must fence itself now. */
  boolean ranOut() {
    return held && now() - fenceAtNanos >= 0;
  }

  /** True while the lease is held (registered and neither fenced nor shut down). */
  boolean held() {
    return held;
  }

  /** True if a {@code UnitStart} emitted in {@code generation} may still be delivered. */
  boolean startMayRun(long generation) {
    return generation == this.generation && valid();
  }

  long generation() {
    return generation;
  }

  /**
   * The member stops trusting its lease (deadline passed, or the store refused a renewal): a new generation; the
   * old lease may still run in the store until {@link #oldLeaseEndNanos()}.
   *
   * @param wallNowMillis the wall clock now, to date the fence
   * @return when the lease stopped being reliable (epoch millis): the deadline if it passed already (a pause was
   *     detected late), else now (the store refused a renewal earlier)
   */
  long fence(long wallNowMillis) {
    long late = Math.max(0, now() - fenceAtNanos);
    held = false;
    oldLeaseMayRun = true;
    generation++;
    return wallNowMillis - late / 1_000_000L;
  }

  /** The member leaves (shutdown): no lease any more, a new generation. */
  void drop() {
    held = false;
    generation++;
  }

  /**
   * True unless a fenced lease may still run in the store (or be within its clock margin): registering or
   * deregistering now cannot cut the margin short.
   */
  boolean mayRegister() {
    return !oldLeaseMayRun || now() - oldLeaseEndNanos() >= 0;
  }

  /**
   * When the last acknowledged lease surely ran out in the store, clock margin included:
   * {@code lastRenewAck + ttl + clockMargin}.
   */
  long oldLeaseEndNanos() {
    return lastRenewAckNanos + ttlNanos + clockMarginNanos;
  }

  /** The fence deadline on the nano clock. */
  long fenceAtNanos() {
    return fenceAtNanos;
  }

  /** The fence deadline in epoch millis, estimated from {@code wallNowMillis}. */
  long deadlineMillis(long wallNowMillis) {
    return wallNowMillis + Math.floorDiv(fenceAtNanos - now(), 1_000_000L);
  }

  /** Milliseconds since the last successful renewal was sent, for messages. */
  long millisSinceLastRenewSent() {
    return (now() - lastRenewSentNanos) / 1_000_000L;
  }
}
