package io.allot.server.events;

import io.allot.server.auth.Authenticator;
import io.allot.store.events.EventKind;
import io.allot.store.events.EventWriter;
import io.allot.store.events.NewEvent;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The {@link Authenticator.Builder#onRefused} hook that writes a refused gRPC call or dispatch stream to the event
 * history as an {@code api-refused} event (best-effort, {@link EventWriter#writeLater}): actor {@code <channel>:<client
 * address>} (e.g. {@code grpc:10.0.0.7}, {@code dispatch:10.0.0.9}), no pool, detail the reason and its message.
 * REST refusals are skipped: {@link ApiWriteEvents} writes those with their path (no double event). Until the
 * writer is known (the store opens after the check is built) refusals are only counted. Thread-safe (no state of its
 * own; the supplier must be).
 */
public final class RefusalEvents implements Consumer<Authenticator.Refusal> {
  private final Supplier<EventWriter> writer;

  /** Writes through the writer {@code writer} gives at each refusal; a null writer skips the event. */
  public RefusalEvents(Supplier<EventWriter> writer) {
    this.writer = java.util.Objects.requireNonNull(writer, "writer");
  }

  @Override
  public void accept(Authenticator.Refusal r) {
    if (r.channel() == Authenticator.Channel.REST) {
      return;
    }
    EventWriter w = writer.get();
    if (w == null) {
      return;
    }
    String actor = r.channel().tag() + ":" + (r.remote() == null ? "unknown" : r.remote().getHostAddress());
    // later, on the writer's thread: the hook runs on the request's thread and must not wait for the store
    w.writeLater(new NewEvent(null, EventKind.API_REFUSED, actor, r.who(),
        r.reason().tag() + " (" + r.needed().label() + "): " + r.message()));
  }
}
