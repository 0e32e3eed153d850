package io.allot.jobs;

import io.allot.jobs.v1.DispatcherMessage;
import io.allot.jobs.v1.EndpointMessage;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link JobDispatcher}'s stream to one endpoint, the dispatcher's half of {@code allot/jobs/v1/jobs.proto}: sends
 * (one caller at a time: gRPC observers are not thread-safe) and hands what the endpoint sends to its
 * {@link EndpointStreams}: a Ready (capacity, id), a Result, the end of the stream.
 *
 * <p>Guards: {@code outstanding}, {@code capacity}, {@code ready}, {@code open} and {@code draining} by the owner's
 * lock ({@link EndpointStreams}); {@code out} and {@code ended} by {@code this}; {@code endpointId} and
 * {@code lastHeardNanos} are volatile (written by the gRPC thread, read by the control thread and the completer).
 */
final class EndpointStream implements ClientResponseObserver<DispatcherMessage, EndpointMessage> {
  private static final Logger log = LoggerFactory.getLogger(EndpointStream.class);

  /** One attempt: (key, token). */
  record AttemptId(String key, long token) {
    static AttemptId of(HeldLock l) {
      return new AttemptId(l.key(), l.token());
    }
  }

  final String address;
  private final EndpointStreams owner;
  /** The jobs sent and without a result, each with its lock; guarded by the owner's lock. */
  final Map<AttemptId, HeldLock> outstanding = new HashMap<>();
  /** Guarded by the owner's lock. */
  int capacity;
  boolean ready;
  boolean open = true;
  boolean draining;
  /** The deadlines sent on this stream; guarded by the owner's lock, set by the owner before the stream opens. */
  EndpointStopTime stopTime;
  /** Guarded by {@code this}: the outgoing half. */
  private ClientCallStreamObserver<DispatcherMessage> out;
  /** Guarded by {@code this}. */
  private boolean ended;
  private volatile String endpointId;
  private volatile long lastHeardNanos = System.nanoTime();

  EndpointStream(String address, EndpointStreams owner) {
    this.address = address;
    this.owner = owner;
    this.endpointId = address;
  }

  /** Credits free now. Guarded by the owner's lock. */
  int free() {
    return open && ready && !draining ? Math.max(0, capacity - outstanding.size()) : 0;
  }

  /** The endpoint's id from its Ready, else the address dialled. */
  String endpointId() {
    return endpointId;
  }

  long lastHeardNanos() {
    return lastHeardNanos;
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<DispatcherMessage> requestStream) {
    synchronized (this) {
      out = requestStream;
    }
  }

  /** Sends {@code m} unless the stream ended (a failed send is the stream's end, which gRPC reports). */
  void send(DispatcherMessage m) {
    synchronized (this) {
      if (ended || out == null) {
        return;
      }
      try {
        out.onNext(m);
      } catch (RuntimeException e) {
        log.debug("send to endpoint {} failed: {}", address, e.toString());
      }
    }
  }

  /** Half-closes the stream (the endpoint then ends its side). */
  void end() {
    synchronized (this) {
      if (ended || out == null) {
        return;
      }
      ended = true;
      try {
        out.onCompleted();
      } catch (RuntimeException e) {
        log.debug("ending the stream to endpoint {} failed: {}", address, e.toString());
      }
    }
  }

  /** Cancels the call (a silent endpoint). */
  void cancel(String why) {
    synchronized (this) {
      if (ended || out == null) {
        return;
      }
      ended = true;
      out.cancel(why, null);
    }
  }

  @Override
  public void onNext(EndpointMessage m) {
    lastHeardNanos = System.nanoTime();
    switch (m.getKindCase()) {
      case READY -> {
        String bad = Wire.badReady(m.getReady());
        if (bad != null) {
          refuse(bad);
          return;
        }
        if (!m.getReady().getEndpoint().isEmpty()) {
          endpointId = m.getReady().getEndpoint();
        }
        owner.ready(this, m.getReady().getCapacity());
      }
      case RESULT -> {
        String bad = Wire.badResult(m.getResult());
        if (bad != null) {
          refuse(bad);
          return;
        }
        owner.result(this, m.getResult());
      }
      default -> log.debug("unknown message from endpoint {} ignored", address);
    }
  }

  /**
   * A message out of the protocol's bounds: the stream is given up (its jobs run again after their locks expire) and
   * cancelled; the log names the reason (the endpoint sees CANCELLED: gRPC carries no reason for a cancel).
   */
  private void refuse(String why) {
    log.warn("endpoint {}: {}; its stream is cancelled", address, why);
    owner.broken(this, why);
    cancel(why);
  }

  @Override
  public void onError(Throwable t) {
    owner.broken(this, t.toString());
    synchronized (this) {
      ended = true;
    }
  }

  @Override
  public void onCompleted() {
    owner.broken(this, "the endpoint ended it");
    end();
  }

  @Override
  public String toString() {
    return "stream to " + address + (endpointId.equals(address) ? "" : " (" + endpointId + ")");
  }
}
