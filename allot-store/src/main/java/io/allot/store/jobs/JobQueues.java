package io.allot.store.jobs;

import java.util.List;

/**
 * The job queues of a store, as a whole: a store role ({@code Store.jobQueues()}) for what no single queue's view
 * can say, such as which queues there are. A queue exists while it holds a job (in any status) or has a rate limit:
 * the one trace a queue leaves in every store (a queue whose every job was purged and that has no rate limit is
 * gone).
 */
public interface JobQueues {

  /**
   * The names of the queues that hold a job or have a rate limit, sorted (Java's order of strings). It reads the
   * whole store's key space or an index of it: meant for dashboards and operators, not for every request of a worker.
   */
  List<String> names();
}
