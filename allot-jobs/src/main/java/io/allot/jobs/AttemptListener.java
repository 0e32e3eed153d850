package io.allot.jobs;

/**
 * Told of the end of every attempt, once its outcome is known: on a {@link JobWorker} after the store answered its
 * report, on a {@link JobDispatcher} after the store answered an endpoint's result, on a {@link JobEndpoint} when the
 * dispatcher's verdict arrived (not when the stream broke first). An outcome the store did not give in time is
 * {@link AttemptOutcome#UNKNOWN}, never null. An attempt a closing worker gives back ({@link GiveBack}: the job runs
 * again, the attempt not counted) did not end and is not told. Called on one of the client's threads; keep it short
 * (a throw is logged and ignored).
 */
@FunctionalInterface
public interface AttemptListener {

  /** One attempt ended. */
  void ended(AttemptEnd end);
}
