package io.allot.worker;

import io.allot.store.MemberConflictException;
import io.allot.store.StoreUnavailableException;
import org.slf4j.Logger;

/**
 * Logs the failures of a retried job without flooding the log: a store outage once when it starts and once when it
 * ends, a registration conflict once until the job succeeds, any other error once per distinct message. Used by one
 * thread at a time (the job's); the fields are volatile because the first call may come from {@code start()} before
 * the job's own thread runs.
 */
final class RetryLog {
  private final Logger log;
  private final String who;
  private final String job;
  private final long retryMillis;
  /** True while the store is unreachable for this job. */
  private volatile boolean down;
  /** The last error logged, null after a success. */
  private volatile String lastError;
  /** True while a registration conflict is being waited out. */
  private volatile boolean conflict;

  /**
   * @param who         {@code pool=P member=M}, for every line
   * @param job         what is retried, e.g. "the lease"
   * @param retryMillis how often it is retried, for the outage line
   */
  RetryLog(Logger log, String who, String job, long retryMillis) {
    this.log = log;
    this.who = who;
    this.job = job;
    this.retryMillis = retryMillis;
  }

  /** The job succeeded. */
  void ok() {
    lastError = null;
    conflict = false;
    if (down) {
      down = false;
      log.info("{} store reachable again for {}", who, job);
    }
  }

  /** The store could not be reached. */
  void unreachable(StoreUnavailableException e) {
    if (!down) {
      down = true;
      log.warn("{} store unreachable for {}, retrying every {} ms: {}", who, job, retryMillis, e.toString());
    }
  }

  /** The member id is live under another session (logged once until the job succeeds). */
  void conflict(MemberConflictException e) {
    if (!conflict) {
      conflict = true;
      log.warn("{} {}: retrying every {} ms until that session's lease has run out", who, e.getMessage(),
          retryMillis);
    }
  }

  /** Another failure. */
  void failed(RuntimeException e) {
    String msg = e.toString();
    if (!msg.equals(lastError)) {
      lastError = msg;
      log.error("{} {} failed (retried every {} ms)", who, job, retryMillis, e);
    }
  }
}
