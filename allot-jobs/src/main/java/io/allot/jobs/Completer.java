package io.allot.jobs;

import io.allot.jobs.v1.Result;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Completes a {@link JobDispatcher}'s jobs from its endpoints' results: each result goes to the shared
 * {@link AttemptReporter} with its attempt's lock (successes straight into the finish batches, failures on a
 * completion thread, as they are one store call each), and the endpoint gets a Verdict with the outcome once it is
 * known ({@code OUTCOME_UNSPECIFIED} when unknown). A result that names no attempt out on its stream (a duplicate, or
 * a bad endpoint) completes nothing: it is counted and answered as rejected. Stateless.
 */
final class Completer {
  private final AttemptReporter reporter;
  private final Executor completions;

  Completer(AttemptReporter reporter, Executor completions) {
    this.reporter = reporter;
    this.completions = completions;
  }

  /** The result {@code r} came on {@code s} for the attempt holding {@code lock} (null if none of s's). */
  void complete(EndpointStream s, HeldLock lock, Result r) {
    if (lock == null) {
      reporter.count(AttemptOutcome.REJECTED);
      s.send(Wire.verdict(r.getKey(), r.getToken(), AttemptOutcome.REJECTED));
      return;
    }
    String error = Wire.error(r);
    if (error == null) {
      report(s, lock, null, null);
      return;
    }
    Duration wait = Wire.retryAfter(r);
    try {
      completions.execute(() -> report(s, lock, error, wait));
    } catch (RejectedExecutionException e) {
      report(s, lock, error, wait); // closing: report on this thread rather than drop a result
    }
  }

  private void report(EndpointStream s, HeldLock lock, String error, Duration wait) {
    reporter.report(lock, s.endpointId(), error, wait)
        .thenAccept(end -> s.send(Wire.verdict(end.key(), end.token(), end.outcome())));
  }
}
