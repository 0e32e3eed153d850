package io.allot.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.allot.server.http.ApiFixture.Res;
import io.allot.store.events.EventKind;
import io.allot.store.events.EventQuery;
import io.allot.store.events.RecordedEvent;
import io.allot.store.jobs.ClaimedJob;
import io.allot.store.jobs.JobQueue;
import io.allot.store.jobs.JobStatus;
import io.allot.store.jobs.NewJob;
import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /queues} (stats, failures, retry and ignore as {@code allot job} does them) and {@code /pools/{pool}/weights}
 * (the live routing weights): the shapes, and bad input, unknown queues, jobs and pools, and refused writes changing
 * nothing.
 */
class QueueAndWeightRoutesTest {
  final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
  final MemoryStore store = new MemoryStore(nanos::get);
  final List<ApiFixture> fixtures = new ArrayList<>();

  @AfterEach
  void close() {
    fixtures.forEach(ApiFixture::close);
    store.close();
  }

  /** A server on {@link #store}; writes without a token accepted only if {@code loopback}. */
  ApiFixture server(boolean loopback) {
    TaskService tasks = TaskService.forPools(store, ApiFixture.TABLE, List.of("p", "q"));
    ApiHandler api = new ApiHandler(tasks, null, false, a -> loopback)
        .withRoutes(ServerRoutes.of(store, tasks, ApiFixture.TABLE, ApiFixture.UNITS));
    ApiFixture f = new ApiFixture(api, null);
    fixtures.add(f);
    return f;
  }

  /** Queue mail: a todo (a), a failed (b, "boom"), a finished (c); queue slow: only a rate limit. */
  JobQueue queues() {
    JobQueue mail = store.jobQueue("mail");
    mail.enqueue(List.of(NewJob.of("b"), NewJob.of("c")));
    ClaimedJob b = mail.claim("w", 1, Duration.ofSeconds(30)).get(0);
    ClaimedJob c = mail.claim("w", 1, Duration.ofSeconds(30)).get(0);
    mail.fail(b.key(), b.token(), "boom", Duration.ofHours(1));
    mail.finish(c.key(), c.token());
    mail.enqueue(NewJob.of("a"));
    store.jobQueue("slow").limitRate(2.5);
    nanos.addAndGet(Duration.ofMillis(1500).toNanos());
    return mail;
  }

  @Test
  void queuesAreListedWithCountsOldestTodoAndRate() {
    queues();
    ApiFixture f = server(true);
    Res r = f.get("/api/v1/queues");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    JsonNode qs = r.json().get("queues");
    assertThat(qs).extracting(q -> q.get("name").asText()).containsExactly("mail", "slow");
    JsonNode mail = qs.get(0);
    assertThat(mail.get("todo").asLong()).isEqualTo(1);
    assertThat(mail.get("failed").asLong()).isEqualTo(1);
    assertThat(mail.get("finished").asLong()).isEqualTo(1);
    assertThat(mail.get("processing").asLong()).isZero();
    assertThat(mail.get("ignored").asLong()).isZero();
    assertThat(mail.get("oldestTodoMs").asLong()).isEqualTo(1500);
    assertThat(mail.get("ratePerSecond").asDouble()).isZero();
    JsonNode slow = qs.get(1);
    assertThat(slow.get("oldestTodoMs").isNull()).isTrue();
    assertThat(slow.get("ratePerSecond").asDouble()).isEqualTo(2.5);

    JsonNode one = f.get("/api/v1/queues/mail").json();
    assertThat(one.get("name").asText()).isEqualTo("mail");
    assertThat(one.get("failures")).hasSize(1);
    JsonNode failure = one.get("failures").get(0);
    assertThat(failure.get("key").asText()).isEqualTo("b");
    assertThat(failure.get("attempts").asInt()).isEqualTo(1);
    assertThat(failure.get("error").asText()).isEqualTo("boom");
    assertThat(failure.get("time").asText()).endsWith("Z");
  }

  @Test
  void retryAndIgnoreChangeOneJobAndRefuseWhatTheCliRefuses() {
    JobQueue mail = queues();
    ApiFixture f = server(true);
    Res retry = f.call("POST", "/api/v1/queues/mail/jobs/b/retry", null, null);
    assertThat(retry.status()).as(retry.body()).isEqualTo(200);
    assertThat(retry.json().get("retried").asInt()).isEqualTo(1);
    assertThat(mail.get("b").orElseThrow().status()).isEqualTo(JobStatus.TODO);
    assertThat(mail.get("b").orElseThrow().attempts()).isZero();
    Res ignore = f.call("POST", "/api/v1/queues/mail/jobs/a/ignore", null, null);
    assertThat(ignore.status()).isEqualTo(200);
    assertThat(ignore.json().get("ignored").asInt()).isEqualTo(1);
    assertThat(mail.get("a").orElseThrow().status()).isEqualTo(JobStatus.IGNORED);

    Object[][] refused = {
      {"/api/v1/queues/mail/jobs/c/ignore", 409, "key: finished, so not ignored: c (queue mail); nothing changed"},
      {"/api/v1/queues/mail/jobs/nope/retry", 404, "key: no job 'nope' in queue 'mail'"},
      {"/api/v1/queues/never/jobs/b/retry", 404, "queue: queue 'never': no such queue"},
      {"/api/v1/queues/bad%20name/jobs/b/retry", 400, "queue: queue name 'bad name' has ' '"},
      {"/api/v1/queues/mail/jobs/" + "k".repeat(2000) + "/retry", 400, "key: "},
    };
    for (Object[] c : refused) {
      Res r = f.call("POST", (String) c[0], null, null);
      assertThat(r.status()).as(r.body()).isEqualTo(c[1]);
      assertThat(r.error()).startsWith((String) c[2]);
    }
    assertThat(mail.get("c").orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
    assertThat(store.jobQueues().names()).containsExactly("mail", "slow");
    assertThat(f.call("GET", "/api/v1/queues/mail/jobs/b/retry", null, null).status()).isEqualTo(405);
    assertThat(f.get("/api/v1/queues/never").status()).isEqualTo(404);
  }

  List<RecordedEvent> byHandEvents() {
    return store.events().query(EventQuery.all().ofKinds(Set.of(EventKind.JOB_RETRIED, EventKind.JOB_IGNORED)))
        .events();
  }

  @Test
  void retryAndIgnoreAreJobEventsOfTheApiWriterOncePerChangedJob() {
    queues();
    TaskService tasks = TaskService.forPools(store, ApiFixture.TABLE, List.of("p", "q"));
    ApiFixture withToken = new ApiFixture(new ApiHandler(tasks, "tok", false, a -> false)
        .withRoutes(ServerRoutes.of(store, tasks, ApiFixture.TABLE, ApiFixture.UNITS)), null);
    fixtures.add(withToken);
    assertThat(withToken.call("POST", "/api/v1/queues/mail/jobs/b/retry", null, "tok").status()).isEqualTo(200);
    ApiFixture loopback = server(true);
    assertThat(loopback.call("POST", "/api/v1/queues/mail/jobs/a/ignore", null, null).status()).isEqualTo(200);
    assertThat(loopback.call("POST", "/api/v1/queues/mail/jobs/c/ignore", null, null).status()).isEqualTo(409);
    assertThat(loopback.call("POST", "/api/v1/queues/mail/jobs/nope/retry", null, null).status()).isEqualTo(404);

    List<RecordedEvent> events = byHandEvents();
    assertThat(events).extracting(RecordedEvent::kind, RecordedEvent::actor, RecordedEvent::subject).containsExactly(
        org.assertj.core.groups.Tuple.tuple(EventKind.JOB_RETRIED, "api:api-token", "mail/b"),
        org.assertj.core.groups.Tuple.tuple(EventKind.JOB_IGNORED, "api:127.0.0.1", "mail/a"));
    assertThat(store.events().query(EventQuery.all().ofKinds(Set.of(EventKind.API_WRITE))).events())
        .as("each request's own api-write too").hasSize(2);
  }

  @Test
  void queueWritesWithoutATokenFromAnotherAddressAreRefusedAndChangeNothing() {
    JobQueue mail = queues();
    ApiFixture f = server(false);
    Res r = f.call("POST", "/api/v1/queues/mail/jobs/b/retry", null, null);
    assertThat(r.status()).isEqualTo(403);
    assertThat(f.call("POST", "/api/v1/queues/mail/jobs/a/ignore", null, null).status()).isEqualTo(403);
    assertThat(mail.get("b").orElseThrow().status()).isEqualTo(JobStatus.FAILED);
    assertThat(mail.get("a").orElseThrow().status()).isEqualTo(JobStatus.TODO);
    assertThat(f.get("/api/v1/queues").status()).isEqualTo(200);
  }

  @Test
  void weightsAreReadAndReplacedWholeWithTheirRevision() {
    ApiFixture f = server(true);
    JsonNode none = f.get("/api/v1/pools/q/weights").json();
    assertThat(none.get("pool").asText()).isEqualTo("q");
    assertThat(none.get("weights")).isEmpty();
    assertThat(none.get("version").asLong()).isZero();
    Res put = f.call("PUT", "/api/v1/pools/q/weights", "{\"weights\":{\"v2\":10,\"v1\":90}}", null);
    assertThat(put.status()).as(put.body()).isEqualTo(200);
    long v = put.json().get("version").asLong();
    assertThat(v).isPositive();
    assertThat(store.routeWeights("q").read()).isEqualTo(Map.of("v1", 90, "v2", 10));
    JsonNode read = f.get("/api/v1/pools/q/weights").json();
    assertThat(read).isEqualTo(put.json());
    Res cleared = f.call("PUT", "/api/v1/pools/q/weights", "{\"weights\":{}}", null);
    assertThat(cleared.json().get("version").asLong()).isGreaterThan(v);
    assertThat(store.routeWeights("q").read()).isEmpty();
  }

  @Test
  void badWeightsUnknownPoolsAndRefusedWritesChangeNothing() {
    store.routeWeights("q").set(Map.of("v1", 5));
    long before = store.routeWeights("q").revision();
    ApiFixture f = server(true);
    Object[][] cases = {
      {"/api/v1/pools/q/weights", "{\"weights\":{\"v1\":-1}}", 400, "weights: weight of version 'v1' must be 0..1000000"},
      {"/api/v1/pools/q/weights", "{\"weights\":{\"v1\":1.5}}", 400, "weights: weight of version 'v1' must be an integer"},
      {"/api/v1/pools/q/weights", "{\"weights\":{\"\":1}}", 400, "weights: version must not be empty"},
      {"/api/v1/pools/q/weights", "{\"weights\":[1]}", 400, "weights: must be an object"},
      {"/api/v1/pools/q/weights", "{\"weights\":{}", 400, "body: malformed JSON"},
      {"/api/v1/pools/q/weights", "{\"other\":{}}", 400, "body: unknown field 'other'"},
      {"/api/v1/pools/nope/weights", "{\"weights\":{}}", 404, "pool: unknown pool 'nope'"},
    };
    for (Object[] c : cases) {
      Res r = f.call("PUT", (String) c[0], (String) c[1], null);
      assertThat(r.status()).as(r.body()).isEqualTo(c[2]);
      assertThat(r.error()).startsWith((String) c[3]);
    }
    assertThat(f.get("/api/v1/pools/nope/weights").status()).isEqualTo(404);
    ApiFixture remote = server(false);
    assertThat(remote.call("PUT", "/api/v1/pools/q/weights", "{\"weights\":{}}", null).status()).isEqualTo(403);
    assertThat(store.routeWeights("q").read()).isEqualTo(Map.of("v1", 5));
    assertThat(store.routeWeights("q").revision()).isEqualTo(before);
  }
}
