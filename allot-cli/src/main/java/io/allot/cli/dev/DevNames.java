package io.allot.cli.dev;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The names {@code allot dev} uses in the store, in one place (the dashboard's tests read them too): its pools, their
 * units lists, the one table they publish into and the job queue. Each is the default name with the run's key prefix
 * in front ({@code --key-prefix}), so runs on one real store do not collide. Immutable.
 *
 * @param demoPool    ping-only demo members (the original Go distributor's layout: legacy and health pings)
 * @param units       the units list of {@code demoPool}
 * @param workerPool  the members built with the worker SDK ({@code Divider}, {@code UnitRunner})
 * @param workerUnits the units list of {@code workerPool}; its units are named apart from {@code units}, so one
 *                    table routes each unit to one owner
 * @param taskPool    the pool of long-running tasks ({@code TaskRunner}); its units are its tasks
 * @param taskUnits   the units list of {@code taskPool}'s distributor, kept empty (a pool with tasks ignores it; the
 *                    task API refuses a first task in a pool whose list holds units)
 * @param table       the distribution hash every pool publishes into
 * @param queue       the job queue fed and worked by the run
 */
public record DevNames(String demoPool, String units, String workerPool, String workerUnits, String taskPool,
    String taskUnits, String table, String queue) {
  /** The names without prefix: those of a run on the in-memory store. */
  public static final DevNames DEFAULT = new DevNames("sys-robots-list", "sys-channels", "dev-workers",
      "dev-worker-units", "dev-tasks", "dev-task-units", "sys-matching-table", "dev-emails");

  /** The prefix given to the names on a real store when none is given: the demo never touches a real fleet's keys. */
  public static final String STORE_PREFIX = "allot-dev-";

  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._-]{0,40}");

  /**
   * The {@link #DEFAULT} names with {@code prefix} in front of each.
   *
   * @throws IllegalArgumentException naming the prefix if it is not 0-40 of {@code A-Z a-z 0-9 . _ -}
   */
  public static DevNames withPrefix(String prefix) {
    if (prefix == null || !PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException("--key-prefix: '" + prefix + "' must be 0-40 of A-Z a-z 0-9 . _ -");
    }
    DevNames d = DEFAULT;
    return new DevNames(prefix + d.demoPool, prefix + d.units, prefix + d.workerPool, prefix + d.workerUnits,
        prefix + d.taskPool, prefix + d.taskUnits, prefix + d.table, prefix + d.queue);
  }

  /** The pools, in the order they are shown. */
  public List<String> pools() {
    return List.of(demoPool, workerPool, taskPool);
  }
}
