package io.allot.store;

/**
 * One connection to a shared store, seen through small <em>roles</em>: each role is one cohesive concern with its
 * own interface, and a store implements every role listed here. Open one by URI with {@link Stores#open(String)}
 * ({@code memory:}, {@code redis://host:port}, {@code rediss://...}, {@code redis-cluster://h1:p1,h2:p2},
 * {@code postgresql://user:pass@host:port/db}); the providers are found with {@link java.util.ServiceLoader}.
 *
 * <table>
 *   <caption>Roles</caption>
 *   <tr><th>role</th><th>what it holds</th><th>scope</th></tr>
 *   <tr><td>{@link StoreClock}</td><td>the store's own clock: every expiry is judged by it, never a host's</td><td>store</td></tr>
 *   <tr><td>{@link Leadership}</td><td>named leases with fencing tokens (distributor leadership)</td><td>store</td></tr>
 *   <tr><td>{@link Membership}</td><td>member records with a lease, a session and metadata</td><td>pool</td></tr>
 *   <tr><td>{@link Ownership}</td><td>unit claims with fencing tokens: at most one owner per unit</td><td>pool</td></tr>
 *   <tr><td>{@link Tables}</td><td>fenced publication of the assignment table, its epoch, reads by member; the one codec of its fields (decoded units)</td><td>table key</td></tr>
 *   <tr><td>{@link Notifications}</td><td>change hints on {@link Topic}s (pub/sub; never a log)</td><td>store</td></tr>
 *   <tr><td>{@link SeedKeys}</td><td>the original distributor's Redis layout: services lists, units list, distribution hash</td><td>key</td></tr>
 *   <tr><td>{@link io.allot.store.jobs.JobQueue}</td><td>jobs (finite queued work): enqueue, claim with a lock and a token, finish or fail, retries</td><td>queue</td></tr>
 *   <tr><td>{@link io.allot.store.jobs.JobQueues}</td><td>the job queues as a whole: their names</td><td>store</td></tr>
 *   <tr><td>{@link io.allot.store.tasks.TaskSpecs}</td><td>long-running task specs: name, arguments, cost, desired state, the run and its faults</td><td>pool</td></tr>
 *   <tr><td>{@link RouteWeights}</td><td>live routing weights: canary version to weight, replaced whole</td><td>pool</td></tr>
 *   <tr><td>{@link io.allot.store.events.Events}</td><td>the event history: what the components saw, bounded per pool and by age</td><td>store</td></tr>
 * </table>
 *
 * <p>Role views are cheap, thread-safe and stay valid until the store is closed; a pool-scoped view checks the pool
 * name when it is made ({@link IllegalArgumentException} naming it). Roles have no default methods, so a decorator
 * (fault injection, metrics) must implement every method: when a role grows, the decorator stops compiling instead
 * of silently skipping the new method. New storage needs come as new roles.
 *
 * <h2>Failures</h2>
 * An unreachable or timed-out store raises {@link StoreUnavailableException}; a write that failed that way may or may
 * not have been applied, and every write of every role is safe to retry. A stale lease raises
 * {@link FencedException} and changes nothing. Calls on a closed store throw {@link IllegalStateException}.
 */
public interface Store extends AutoCloseable {

  /** Where this store is, for messages and logs (never a password), e.g. {@code redis://127.0.0.1:6379}. */
  String describe();

  /** The safety settings in force and what the connect-time durability check found. */
  Safety safety();

  /** The store's clock. */
  StoreClock clock();

  /** Named leases with fencing tokens. */
  Leadership leadership();

  /**
   * The members of {@code pool} (a pool is named by its services list key, the distributor's pool).
   *
   * @throws IllegalArgumentException if the pool name is empty
   */
  Membership membership(String pool);

  /**
   * Unit ownership in {@code pool}.
   *
   * @throws IllegalArgumentException if the pool name is empty
   */
  Ownership ownership(String pool);

  /** Fenced publication and reading of assignment tables. */
  Tables tables();

  /** Change notifications. */
  Notifications notifications();

  /** The original distributor's keys (services lists, units list, distribution hash). */
  SeedKeys seedKeys();

  /**
   * The job queue {@code name} (jobs: finite queued work).
   *
   * @throws IllegalArgumentException if the name is not a valid queue name ({@link
   *     io.allot.store.jobs.JobLimits#checkQueue})
   */
  io.allot.store.jobs.JobQueue jobQueue(String name);

  /** The job queues as a whole: which there are ({@link io.allot.store.jobs.JobQueues#names()}). */
  io.allot.store.jobs.JobQueues jobQueues();

  /**
   * The long-running task specs of {@code pool}.
   *
   * @throws IllegalArgumentException if the pool name is empty
   */
  io.allot.store.tasks.TaskSpecs taskSpecs(String pool);

  /**
   * The live routing weights of {@code pool}.
   *
   * @throws IllegalArgumentException if the pool name is empty
   */
  RouteWeights routeWeights(String pool);

  /** The event history (what the components saw, for people; bounded per pool and by age). */
  io.allot.store.events.Events events();

  /** Closes connections and stops notification delivery; later calls fail with {@link IllegalStateException}. */
  @Override
  void close();

  /**
   * Checks a pool name for a pool-scoped view: not null, not empty.
   *
   * @return the name
   * @throws IllegalArgumentException naming the problem
   */
  static String checkPool(String pool) {
    if (pool == null || pool.isEmpty()) {
      throw new IllegalArgumentException("pool must be a non-empty name but was " + (pool == null ? "null" : "''"));
    }
    return pool;
  }
}
