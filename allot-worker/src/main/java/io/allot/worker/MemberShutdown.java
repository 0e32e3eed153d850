package io.allot.worker;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a member leaves ({@link Divider#cancel()}). Deregistering makes the member's units claimable at once, so it
 * deregisters right away only when every unit was confirmed and released; a unit not confirmed in time expires with
 * the lease instead, and the member deregisters only after that, i.e. no earlier than a crashed member would give it
 * up. The same holds after a self-fence: the fenced lease may still run in the store, with units the application was
 * told to stop only {@code fenceMargin} ago, so the member deregisters only once it has surely run out:
 * <ol>
 *   <li>stop the loop: nothing new is claimed;</li>
 *   <li>a {@code SHUTDOWN} stop for every running unit;</li>
 *   <li>release each unit confirmed within {@code shutdownGrace}, while the lease (still renewed) holds;</li>
 *   <li>stop renewing; if units are still unconfirmed, or the member is fenced, wait until the old lease has surely
 *   run out, clock margin included ({@link LeaseDeadline#oldLeaseEndNanos()}; the watchdog fences meanwhile, at the
 *   deadline, with {@code LEASE_LOST});</li>
 *   <li>deregister; close the pings, the subscriptions and the event thread.</li>
 * </ol>
 * Waits use the {@link StateLock}'s condition; no store call is made under the lock. Called from a listener callback,
 * it does not wait for confirmations that callback would have to deliver.
 */
final class MemberShutdown {
  private static final Logger log = LoggerFactory.getLogger(MemberShutdown.class);

  private final Settings settings;
  private final StateLock lock;
  private final LeaseDeadline lease;
  private final Reconciler units;
  private final MemberSession session;
  private final ReconcileLoop loop;
  private final EventDispatcher events;
  private final PingEndpoint pings;

  MemberShutdown(Settings settings, StateLock lock, LeaseDeadline lease, Reconciler units, MemberSession session,
      ReconcileLoop loop, EventDispatcher events, PingEndpoint pings) {
    this.settings = settings;
    this.lock = lock;
    this.lease = lease;
    this.units = units;
    this.session = session;
    this.loop = loop;
    this.events = events;
    this.pings = pings;
  }

  /** Runs the steps above; the divider has already left RUNNING. */
  void run(String memberId) {
    boolean onEventThread = events.onEventThread();
    stopLoop();
    stopEveryUnit();
    releaseConfirmedWithinGrace(onEventThread, memberId);
    session.stopRenewing();
    boolean leaseOver = awaitOldLeaseIfItMayRun(memberId);
    session.stopWatchdog();
    session.leave(leaseOver);
    closeEndpoints();
    events.shutdown();
    log.info("pool={} member={} cancelled", settings.pool(), memberId);
  }

  /** Closes what start() opened, except the event thread: for a start() that failed, and the last step above. */
  void closeEndpoints() {
    session.stopRenewing();
    session.stopWatchdog();
    loop.unsubscribe();
    loop.stopReleaser();
    pings.close();
  }

  private void stopLoop() {
    loop.wake();
    loop.join(Math.max(1000L, settings.shutdownGrace().toMillis()));
  }

  private void stopEveryUnit() {
    lock.run(() -> units.stopAll().forEach(events::emit));
  }

  private void releaseConfirmedWithinGrace(boolean onEventThread, String memberId) {
    long graceEnd = lease.now() + settings.graceNanos();
    while (true) {
      lock.lock();
      try {
        if (!lease.held() || units.isEmpty()) {
          return;
        }
        if (!units.anyConfirmed()) {
          long left = Math.min(graceEnd, lease.fenceAtNanos()) - lease.now();
          if (left <= 0 || onEventThread) {
            return;
          }
          lock.awaitNanos(Math.min(left, 50_000_000L));
          continue;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        lock.unlock();
      }
      try {
        loop.releaseConfirmed();
      } catch (RuntimeException e) {
        log.warn("pool={} member={} releasing units at shutdown failed (they expire with the lease): {}",
            settings.pool(), memberId, e.toString());
        return;
      }
    }
  }

  /**
   * Waits until the lease surely ran out if units remain on it (held) or it was fenced and may still run.
   *
   * @return false if interrupted meanwhile: the member must then not deregister (the lease expires on its own)
   */
  private boolean awaitOldLeaseIfItMayRun(String memberId) {
    lock.lock();
    try {
      if (lease.held() && !units.isEmpty()) {
        log.warn("pool={} member={} {} units not confirmed within shutdownGrace; they expire with the lease",
            settings.pool(), memberId, units.size());
      } else if (lease.held() || lease.mayRegister()) {
        return true; // nothing runs on the lease, or no fenced lease can still run
      } else {
        log.info("pool={} member={} fenced: deregistering once the old lease has surely run out", settings.pool(),
            memberId);
      }
      long left;
      while ((left = lease.oldLeaseEndNanos() - lease.now()) > 0) {
        lock.awaitNanos(left); // the watchdog fences meanwhile (LEASE_LOST) at the deadline
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("pool={} member={} interrupted while waiting for the old lease to run out: not deregistering (the"
          + " record expires on its own)", settings.pool(), memberId);
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** For a divider whose start() failed: closes what was opened, lets queued events go. */
  void afterFailedStart() {
    closeEndpoints();
    events.shutdownNoWait();
  }
}
