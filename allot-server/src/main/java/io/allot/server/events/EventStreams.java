package io.allot.server.events;

import io.allot.store.events.EventPage;
import io.allot.store.events.EventQuery;
import io.allot.store.events.Events;
import io.allot.store.events.RecordedEvent;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskServiceException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /api/v1/events/stream?pool=P&kind=K&after=CURSOR}: the event history as server-sent events, each
 * {@code id: <cursor>\ndata: EVENT\n\n}, a {@code : keepalive} comment every {@link #KEEPALIVE}; a reconnecting
 * client's {@code Last-Event-ID} wins over {@code after}; without either the stream starts at the newest event kept.
 *
 * <p>No stream holds a thread: the writes are Jetty's asynchronous writes, and one scheduler thread polls the store
 * every {@link #POLL} for every stream: a stream behind (just opened with a cursor, or after a burst) reads its own
 * pages; the streams caught up share one read of every event after the lowest of their cursors. A stream whose
 * client does not read keeps its write pending and is skipped (its connection ends when Jetty's idle timeout,
 * {@link #IDLE_TIMEOUT}, passes without progress); at most {@link #MAX_STREAMS} are open (503 beyond).
 */
public final class EventStreams implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventStreams.class);
  /** The most streams open at once; more are a 503. */
  public static final int MAX_STREAMS = 256;
  /** How often a stream without events gets a comment line. */
  static final Duration KEEPALIVE = Duration.ofSeconds(15);
  /** How often the store is polled. */
  static final Duration POLL = Duration.ofMillis(250);
  /** A stream's connection with no progress this long is closed (longer than the keepalive). */
  static final Duration IDLE_TIMEOUT = Duration.ofSeconds(45);
  private static final int SHARED_READ = 1000;
  private static final int OWN_READ = 200;

  private final Events events;
  private final CopyOnWriteArrayList<Stream> streams = new CopyOnWriteArrayList<>();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ScheduledExecutorService poller;
  /** When the last poll failure was logged (nanoTime); poller thread only. */
  private long lastWarnNanos = System.nanoTime() - TimeUnit.MINUTES.toNanos(2);

  /** Streams of {@code events}; one daemon thread until {@link #close()}. */
  public EventStreams(Events events) {
    this.events = events;
    this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "allot-event-streams");
      t.setDaemon(true);
      return t;
    });
    poller.scheduleWithFixedDelay(this::poll, POLL.toMillis(), POLL.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** How many streams are open. */
  public int size() {
    return open.get();
  }

  /**
   * Opens a stream answering {@code request} (called on a Jetty thread, returns at once); always handles it (a 503
   * at the cap or when the store cannot be read, 400 for bad input, 405 for another method than GET).
   */
  public boolean open(Request request, Response response, Callback callback) {
    if (!request.getMethod().equals("GET")) {
      response.getHeaders().put(HttpHeader.ALLOW, "GET");
      return error(response, callback, 405, "method: " + request.getMethod() + " is not allowed here; use GET");
    }
    if (closed.get() || open.incrementAndGet() > MAX_STREAMS) {
      if (!closed.get()) {
        open.decrementAndGet();
      }
      return error(response, callback, 503, "stream: too many event streams open (at most " + MAX_STREAMS
          + "); try again later or poll GET /api/v1/events");
    }
    EventQuery q;
    try {
      String rawQuery = request.getHttpURI().getQuery();
      String lastId = request.getHeaders().get("Last-Event-ID");
      q = EventRoutes.query(rawQuery, lastId);
      if (!EventRoutes.hasAfter(rawQuery) && (lastId == null || lastId.isBlank())) {
        q = q.after(events.lastId());
      }
    } catch (TaskServiceException e) {
      open.decrementAndGet();
      return error(response, callback, e.kind() == TaskServiceException.ErrorKind.BAD_INPUT ? 400 : 503,
          e.getMessage());
    } catch (RuntimeException e) {
      open.decrementAndGet();
      log.warn("cannot open an event stream: {}", e.toString());
      return error(response, callback, 503, TaskServiceException.UNAVAILABLE_TO_CLIENTS);
    }
    request.getConnectionMetaData().getConnection().getEndPoint().setIdleTimeout(IDLE_TIMEOUT.toMillis());
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put("X-Accel-Buffering", "no");
    Stream s = new Stream(q, response, callback);
    request.addFailureListener(s::end);
    s.write(": keepalive\n\n"); // before the poller sees it: one write at a time
    streams.add(s);
    return true;
  }

  private static boolean error(Response response, Callback callback, int status, String message) {
    byte[] body = TaskJson.write(TaskJson.error(message)).getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }

  /** One poll of every stream (the poller thread). */
  private void poll() {
    try {
      streams.removeIf(s -> s.ended.get());
      long now = System.nanoTime();
      long lowest = Long.MAX_VALUE;
      for (Stream s : streams) {
        if (s.busy.get()) {
          continue;
        }
        if (!s.caughtUp) {
          EventPage page = events.query(s.query.after(s.cursor).limit(OWN_READ));
          s.send(page.events(), now);
          s.caughtUp = page.next() == null;
        } else {
          lowest = Math.min(lowest, s.cursor);
        }
      }
      if (lowest != Long.MAX_VALUE) {
        EventPage shared = events.query(EventQuery.all().after(lowest).limit(SHARED_READ));
        for (Stream s : streams) {
          if (s.caughtUp && !s.busy.get()) {
            if (shared.next() != null) {
              s.caughtUp = false; // a burst: each reads its own pages from its cursor
            } else {
              s.send(shared.events().stream().filter(e -> e.id() > s.cursor && s.query.matches(e)).toList(), now);
            }
          }
        }
      }
      for (Stream s : streams) {
        if (!s.busy.get() && now - s.lastWriteNanos >= KEEPALIVE.toNanos()) {
          s.write(": keepalive\n\n");
        }
      }
    } catch (RuntimeException e) {
      long now = System.nanoTime();
      if (now - lastWarnNanos >= TimeUnit.MINUTES.toNanos(1)) {
        lastWarnNanos = now;
        log.warn("event streams cannot read the event history (retrying every {} ms; logged once a minute): {}",
            POLL.toMillis(), e.toString());
      }
    }
  }

  /** Ends every stream and stops polling. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      poller.shutdownNow();
      for (Stream s : streams) {
        s.finish();
      }
      streams.clear();
    }
  }

  /** One client's stream. */
  private final class Stream {
    final EventQuery query;
    final Response response;
    final Callback callback;
    /** Whether a write is pending (set here, cleared by Jetty's completion). */
    final AtomicBoolean busy = new AtomicBoolean();
    /** Whether the stream ended (client gone, failure or close); the request's callback then was completed. */
    final AtomicBoolean ended = new AtomicBoolean();
    /** The last event id sent; poller thread only (and open, before the stream is listed). */
    long cursor;
    /** Whether the stream reads from the shared poll; poller thread only. */
    boolean caughtUp;
    /** When the last write began (nanoTime); poller thread only (and open). */
    long lastWriteNanos;

    Stream(EventQuery query, Response response, Callback callback) {
      this.query = query;
      this.response = response;
      this.callback = callback;
      this.cursor = query.after();
    }

    void send(List<RecordedEvent> batch, long now) {
      if (batch.isEmpty()) {
        return;
      }
      StringBuilder b = new StringBuilder();
      for (RecordedEvent e : batch) {
        b.append(EventJson.sse(e));
      }
      cursor = batch.get(batch.size() - 1).id();
      write(b.toString());
    }

    void write(String text) {
      lastWriteNanos = System.nanoTime();
      busy.set(true);
      response.write(false, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)),
          Callback.from(Invocable.InvocationType.NON_BLOCKING, () -> busy.set(false), this::end));
    }

    void end(Throwable why) {
      if (ended.compareAndSet(false, true)) {
        open.decrementAndGet();
        callback.failed(why);
      }
    }

    void finish() {
      if (ended.compareAndSet(false, true)) {
        open.decrementAndGet();
        if (busy.get()) {
          callback.failed(new IllegalStateException("the server is stopping"));
        } else {
          response.write(true, ByteBuffer.allocate(0), callback);
        }
      }
    }
  }
}
