package io.allot.jobs.dispatch;

import java.util.Objects;

/**
 * One attempt of one job as a {@link JobEndpoint}'s handler sees it: what the dispatcher sent. Thread-safe:
 * {@link #cancelled()} may be read from any thread.
 */
public final class DispatchedJob {
  private final String queue;
  private final String dispatcher;
  private final String key;
  private final String data;
  private final long token;
  private final int attempt;
  private final int maxAttempts;
  /** Set by the stream's thread when the dispatcher sent a Cancel or the stream broke; read by the handler. */
  private volatile boolean cancelled;

  DispatchedJob(String queue, String dispatcher, String key, String data, long token, int attempt, int maxAttempts) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
    this.key = Objects.requireNonNull(key, "key");
    this.data = Objects.requireNonNull(data, "data");
    this.token = token;
    this.attempt = attempt;
    this.maxAttempts = maxAttempts;
  }

  /** The queue the job comes from (as the dispatcher said in its Hello). */
  public String queue() {
    return queue;
  }

  /** The id of the dispatcher that sent it. */
  public String dispatcher() {
    return dispatcher;
  }

  /** The job's key. */
  public String key() {
    return key;
  }

  /** The job's payload. */
  public String data() {
    return data;
  }

  /** The lock's fencing token: make writes conditional on it (resource = {@link #key()}). */
  public long token() {
    return token;
  }

  /** Which attempt this is, from 1. */
  public int attempt() {
    return attempt;
  }

  /** The job's attempt limit. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * True once this attempt cannot count any more: the dispatcher said its lock is lost, or the stream it came on
   * broke (its result could not be delivered). A long handler should check it between steps and stop.
   */
  public boolean cancelled() {
    return cancelled;
  }

  void cancel() {
    cancelled = true;
  }

  @Override
  public String toString() {
    return "job " + key + " of queue " + queue + " (attempt " + attempt + "/" + maxAttempts + ", token " + token
        + ")";
  }
}
