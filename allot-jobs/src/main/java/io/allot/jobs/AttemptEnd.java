package io.allot.jobs;

import java.util.Objects;
import java.util.Optional;

/**
 * The end of one attempt of one job: which attempt (queue, key, token, number), how it ended, the failure the store
 * was given if the handler failed, and where it ran. The same value on a {@link JobWorker}, a {@link JobDispatcher}
 * and a {@link JobEndpoint}.
 *
 * @param queue   the queue's name
 * @param key     the job's key
 * @param token   the attempt's lock token: (key, token) names the attempt
 * @param attempt which attempt this was, from 1
 * @param outcome what the store did with the result, or {@link AttemptOutcome#UNKNOWN}
 * @param error   the failure reported for the attempt (kept as the job's last error), empty if the handler returned
 * @param ranBy   where the handler ran: the worker's id ({@link JobWorker#workerId()}), or the endpoint's id (its
 *                {@code endpointId}; on a dispatcher, the address it dialled when the endpoint gave none)
 */
public record AttemptEnd(String queue, String key, long token, int attempt, AttemptOutcome outcome,
    Optional<String> error, String ranBy) {
  public AttemptEnd {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(ranBy, "ranBy");
  }

  @Override
  public String toString() {
    return "attempt " + attempt + " of job " + key + " of queue " + queue + " (token " + token + ", on " + ranBy
        + "): " + outcome + error.map(e -> " after " + e).orElse("");
  }
}
