package io.allot.jobs;

import io.allot.store.events.EventKind;
import io.allot.store.events.EventWriter;
import io.allot.store.events.NewEvent;
import io.micrometer.core.instrument.Counter;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatch streams endpoints refused (this dispatcher lacks the endpoint's token, or has a read token): each
 * refusal is counted ({@code allot.jobs.dispatch.refused}); the first of a streak per endpoint is logged at WARN and
 * written to the event history as an {@code api-refused} event (actor {@code dispatch:<dispatcher>}, subject
 * {@code endpoint <address>}), since an endpoint has no store of its own to write it to. The dispatcher opens a
 * refused stream again at every tick, so the rest of the streak is only counted; a stream the endpoint accepts ends
 * the streak.
 *
 * <p>Thread-safe: {@code refusing} is a concurrent set; the counter and the writer are.
 */
final class DispatchRefusals {
  private static final Logger log = LoggerFactory.getLogger(DispatchRefusals.class);

  private final String queue;
  private final String dispatcherId;
  private final Counter refused;
  /** Where the first refusal of a streak goes, or null. */
  private final EventWriter events;
  /** The endpoints whose last stream was refused. */
  private final Set<String> refusing = ConcurrentHashMap.newKeySet();

  DispatchRefusals(String queue, String dispatcherId, Counter refused, EventWriter events) {
    this.queue = queue;
    this.dispatcherId = dispatcherId;
    this.refused = refused;
    this.events = events;
  }

  /** True if {@code why} (a stream's end) is the endpoint refusing this dispatcher. */
  static boolean isRefusal(String why) {
    return why != null && (why.contains("UNAUTHENTICATED") || why.contains("PERMISSION_DENIED"));
  }

  /** The endpoint at {@code address} refused a stream, saying {@code why}. */
  void refused(String address, String why) {
    refused.increment();
    if (!refusing.add(address)) {
      return;
    }
    log.warn("queue {}: endpoint {} refused this dispatcher ({}); give the dispatcher the endpoint's token", queue,
        address, why);
    if (events != null) {
      String detail = "refused dispatcher " + dispatcherId + " of queue " + queue + ": " + why;
      events.writeLater(new NewEvent(null, EventKind.API_REFUSED, "dispatch:" + dispatcherId, "endpoint " + address,
          detail.length() > 500 ? detail.substring(0, 500) + "…" : detail));
    }
  }

  /** The endpoint at {@code address} accepted a stream: the next refusal is a new streak. */
  void accepted(String address) {
    refusing.remove(address);
  }

  /** True while the last stream to {@code address} was refused (for tests). */
  boolean refusing(String address) {
    return refusing.contains(address);
  }
}
