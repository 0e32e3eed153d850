package io.allot.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.allot.server.auth.Authenticator;
import io.allot.server.queues.QueueOps;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.events.EventWriter;
import io.allot.store.events.JobEvents;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.QueueStats;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskServiceException;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import java.util.List;

/**
 * Job queues through REST, with the code of {@code allot job stats|retry|ignore} ({@link QueueOps}):
 * {@code GET /queues} {@code {"queues": [QUEUE...]}} (the known queues: holding a job or with a rate limit), {@code
 * GET /queues/{queue}} one QUEUE with {@code "failures": [{"key", "attempts", "error", "time"}]} (the
 * {@value #FAILURES} most recent, newest first), {@code POST /queues/{queue}/jobs/{key}/retry} {@code {"retried":
 * 1}} and {@code .../ignore} {@code {"ignored": 1}}. QUEUE is {@code {"name", "todo", "failed", "processing",
 * "finished", "ignored", "oldestTodoMs" (the age of the oldest todo in store time, null if none), "ratePerSecond"
 * (0: no limit)}}. A bad queue name or key is a 400, an unknown queue or job a 404, ignoring a finished job a 409;
 * nothing is changed then. Immutable.
 */
final class QueueRoutes implements RouteGroup {
  /** The failures {@code GET /queues/{queue}} lists. */
  static final int FAILURES = 10;

  private final Store store;
  private final QueueOps ops;
  /** Writes the retries and ignores by hand to the event history. */
  private final JobEvents events;

  QueueRoutes(Store store) {
    this.store = store;
    this.ops = new QueueOps(store);
    this.events = new JobEvents(EventWriter.of(store));
  }

  @Override
  public ApiHandler.Reply route(ApiHandler.Call call, List<String> seg, ApiHandler api) {
    if (seg.isEmpty() || !seg.get(0).equals("queues")) {
      return null;
    }
    try {
      if (seg.size() == 1) {
        ApiHandler.allow(call.method(), "GET");
        return ApiHandler.Reply.json(200, all());
      }
      if (seg.size() == 2) {
        ApiHandler.allow(call.method(), "GET");
        JobQueue q = open(seg.get(1));
        QueueStats st = known(q, FAILURES);
        ObjectNode o = summary(q.name(), st, store.clock().timeMillis());
        ArrayNode fa = o.putArray("failures");
        for (Job j : st.failures()) {
          ObjectNode f = fa.addObject();
          f.put("key", j.key());
          f.put("attempts", j.attempts());
          f.put("error", j.lastError());
          f.put("time", TaskJson.instant(j.updatedAtMillis()));
        }
        return ApiHandler.Reply.json(200, o);
      }
      if (seg.size() == 5 && seg.get(2).equals("jobs")
          && (seg.get(4).equals("retry") || seg.get(4).equals("ignore"))) {
        ApiHandler.allow(call.method(), "POST");
        String actor = actor(api.authorize(call), call);
        return ApiHandler.Reply.json(200, byHand(seg.get(1), seg.get(3), seg.get(4).equals("retry"), actor));
      }
      return null;
    } catch (StoreUnavailableException e) {
      throw RouteGroup.unavailable(e);
    }
  }

  private ObjectNode all() {
    long now = store.clock().timeMillis();
    ObjectNode o = TaskJson.MAPPER.createObjectNode();
    ArrayNode a = o.putArray("queues");
    for (String name : ops.names()) {
      QueueStats st = ops.open(name).stats(0);
      if (st.total() > 0 || st.ratePerSecond() > 0) { // else emptied since it was listed
        a.add(summary(name, st, now));
      }
    }
    return o;
  }

  /**
   * The event history's name of a REST writer: {@code api:<token name>} with a token, else {@code api:<address>}
   * (the CLI's is {@code cli:<user>}, {@link JobEvents#cliActor}).
   */
  static String actor(Authenticator.Decision d, ApiHandler.Call call) {
    if (d.who() != null) {
      return "api:" + d.who();
    }
    return "api:" + (call.remote() == null ? "unknown" : call.remote().getHostAddress());
  }

  private ObjectNode byHand(String queue, String key, boolean retry, String actor) {
    JobQueue q = open(queue);
    try {
      QueueOps.checkKeys(List.of(key));
    } catch (IllegalArgumentException e) {
      throw ApiHandler.badInput("key: " + e.getMessage());
    }
    known(q, 0);
    if (q.get(key).isEmpty()) {
      throw new TaskServiceException(ErrorKind.NOT_FOUND, "key: no job '" + key + "' in queue '" + queue + "'");
    }
    ObjectNode o = TaskJson.MAPPER.createObjectNode();
    // one job-retried / job-ignored event per changed job, as the CLI writes (the api-write of the request is
    // ApiWriteEvents'; nothing else writes these for REST)
    if (retry) {
      int n = ops.retry(q, List.of(key));
      o.put("retried", n);
      if (n > 0) {
        events.retried(actor, q.name(), List.of(key));
      }
    } else {
      try {
        int n = ops.ignore(q, List.of(key));
        o.put("ignored", n);
        if (n > 0) {
          events.ignored(actor, q.name(), List.of(key));
        }
      } catch (QueueOps.FinishedException e) {
        throw new TaskServiceException(ErrorKind.CONFLICT, "key: " + e.getMessage());
      }
    }
    return o;
  }

  private JobQueue open(String name) {
    try {
      return ops.open(name);
    } catch (IllegalArgumentException e) {
      throw ApiHandler.badInput("queue: " + e.getMessage());
    }
  }

  private QueueStats known(JobQueue q, int failures) {
    try {
      return ops.stats(q, failures);
    } catch (QueueOps.NoSuchQueueException e) {
      throw new TaskServiceException(ErrorKind.NOT_FOUND, "queue: " + e.getMessage());
    }
  }

  private static ObjectNode summary(String name, QueueStats st, long now) {
    ObjectNode o = TaskJson.MAPPER.createObjectNode();
    o.put("name", name);
    for (JobStatus s : JobStatus.values()) {
      o.put(s.name().toLowerCase(), st.count(s));
    }
    if (st.oldestTodoMillis().isPresent()) {
      o.put("oldestTodoMs", Math.max(0, now - st.oldestTodoMillis().getAsLong()));
    } else {
      o.putNull("oldestTodoMs");
    }
    o.put("ratePerSecond", st.ratePerSecond());
    return o;
  }
}
