package io.allot.store.postgres;

import io.allot.store.jobs.JobQueues;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link JobQueues} on PostgreSQL: the queues with a row in {@code jobs}, found by a loose index scan of its primary
 * key (one index probe per queue, not a read of every job), and those with a rate limit in {@code job_queues}. One
 * statement. A cheap, immutable view.
 */
record PgJobQueues(PgJdbc db, String sql) implements JobQueues {

  /** The statement for the quoted schema {@code s}. */
  static String statement(String s) {
    return "WITH RECURSIVE q(queue) AS ("
        + " (SELECT queue FROM " + s + ".jobs ORDER BY queue LIMIT 1)"
        + " UNION ALL SELECT (SELECT j.queue FROM " + s + ".jobs j WHERE j.queue > q.queue ORDER BY j.queue LIMIT 1)"
        + " FROM q WHERE q.queue IS NOT NULL)"
        + " SELECT queue FROM q WHERE queue IS NOT NULL"
        + " UNION SELECT queue FROM " + s + ".job_queues WHERE rate > 0";
  }

  @Override
  public List<String> names() {
    List<String> out = db.query("list the job queues", sql, rs -> {
      List<String> names = new ArrayList<>();
      while (rs.next()) {
        names.add(rs.getString(1));
      }
      return names;
    });
    out.sort(null);
    return List.copyOf(out);
  }
}
