package io.allot.store.tasks;

import java.util.List;
import java.util.Optional;

/**
 * The long-running task specs of one pool: a store role, scoped to a pool (see {@code Store.taskSpecs(pool)}). A
 * spec names a task that runs forever on exactly one member: its name (unique in the pool), its arguments (JSON text,
 * which the store keeps verbatim), its cost in capacity units and its desired state. The pool's live specs are the
 * units the distributor assigns; a deleted spec stays as a <em>tombstone</em> until {@link #purge} removes it, so its
 * deletion can be watched to the end.
 *
 * <p>Besides what operators write, a spec carries what the worker running it reports: the last confirmed start
 * ({@link TaskRun}, {@link #started}) and the handler's failures ({@link TaskFault}, {@link #fault}). Statuses
 * (Created, Processing, OnDeleting, Deleted, Failed, Pending) are derived from these records together with the
 * pool's ownership and membership; nobody sets a status by hand.
 *
 * <p>Every change of a spec (create, update, delete, purge) bumps the pool's {@link #version()} and is announced on
 * {@link io.allot.store.Topic#taskSpecs(String)} with the task name as message. The run and fault reports are not
 * announced and leave the version alone: they change statuses, which readers derive on demand, and at a failover
 * thousands of starts would otherwise wake every distributor and worker watching the pool. Bad input (see {@link TaskLimits}) gets an
 * {@link IllegalArgumentException} naming it and changes nothing. Every write is safe to retry.
 */
public interface TaskSpecs {

  /** The pool this view is scoped to. */
  String pool();

  /**
   * Creates task {@code name}, atomically. With no spec of that name, or only a tombstone, a new live spec is
   * written (revision = the tombstone's + 1, else 1; created and updated at store time now) and the result is
   * {@link TaskCreated.Outcome#CREATED}. A live spec with the same arguments (compared as text) and cost is left as it
   * is ({@link TaskCreated.Outcome#EXISTS}: creation is idempotent); a live spec with other arguments or cost is left as
   * it is too ({@link TaskCreated.Outcome#CONFLICT}).
   */
  TaskCreated create(String name, String args, int cost);

  /**
   * Replaces the arguments and cost of the live spec {@code name}; the revision grows by one if either changed
   * (a worker running it then restarts it with the new arguments). Empty if there is no live spec of that name.
   */
  Optional<TaskSpec> update(String name, String args, int cost);

  /**
   * Replaces the arguments of the live spec {@code name} and keeps its cost as it is when the write happens: one
   * atomic step, so a concurrent {@link #update} of the cost is never written back over (a read of the cost and an
   * {@code update} with it would revert it). The revision grows by one if the arguments changed. Empty if there is no
   * live spec of that name.
   */
  Optional<TaskSpec> updateArgs(String name, String args);

  /**
   * Requests deletion: the live spec becomes a tombstone (desired state deleted, stamped with the store time), and
   * the distributor stops assigning it. A tombstone is returned unchanged (deleting twice is harmless). Empty if
   * there is no spec of that name.
   */
  Optional<TaskSpec> delete(String name);

  /** The spec {@code name}, live or tombstone. */
  Optional<TaskSpec> get(String name);

  /** Every spec of the pool, live and tombstones, sorted by name. */
  List<TaskSpec> list();

  /**
   * A number that grows with every create, update, delete and purge in the pool (0: the pool never had a spec); not
   * with {@link #started} and {@link #fault} reports. A cheap poll.
   */
  long version();

  /**
   * Records that {@code run.member()} started the task: kept if the spec exists and {@code run.token()} is at least
   * the token of the recorded run (a stale report from an earlier owner never overwrites a newer one). Clears a
   * {@link TaskFault} recorded under an older token.
   *
   * @return true if recorded
   */
  boolean started(String name, TaskRun run);

  /**
   * Records the handler's failures of the run holding {@code token} ({@code null} clears them): kept if the
   * recorded run holds the same token.
   *
   * @return true if recorded
   */
  boolean fault(String name, long token, TaskFault fault);

  /**
   * Removes the tombstone {@code name} if it is still the tombstone of revision {@code revision} (a spec created
   * again since is kept). The caller checks that no member still runs it.
   *
   * @return true if removed
   */
  boolean purge(String name, long revision);
}
