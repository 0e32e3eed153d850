package io.allot.route;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client half of stale-routing repair: when a call that sends one message (unary or server streaming) is
 * refused by a member's {@link OwnerCheckInterceptor} ({@code FAILED_PRECONDITION} with an {@code allot-owner}
 * trailer) before any response reached the application, the call is sent once more, with the same headers and
 * message, carrying {@link AllotRouting#OWNER_HINT}, which {@code allot_owner} routes to the hinted member. Never
 * more than one extra attempt; client-streaming calls are not re-sent. {@link #reRouted()} counts the extra attempts.
 *
 * <p>It also puts a key given as the {@link AllotRouting#KEY} call option into the {@code allot-key} header (when
 * the header is not set), so that the member can check it.
 */
public final class OwnerRetryInterceptor implements ClientInterceptor {
  private final AtomicLong reRouted = new AtomicLong();
  /** {@code allot.route.reroutes} by channel authority (the pool), registered at a channel's first call. */
  private final java.util.concurrent.ConcurrentMap<String, io.micrometer.core.instrument.Counter> reroutes =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** How many calls were sent a second time to a hinted owner. */
  public long reRouted() {
    return reRouted.get();
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    if (options.getOption(AllotRouting.OWNER_HINT) != null || !method.getType().clientSendsOneMessage()) {
      String key = options.getOption(AllotRouting.KEY);
      if (key == null) {
        return next.newCall(method, options);
      }
      return new io.grpc.ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          withKey(headers, key);
          super.start(listener, headers);
        }
      };
    }
    reroutes.computeIfAbsent(String.valueOf(next.authority()), RouteMeters::reroutes);
    return new RetryingCall<>(method, options, next);
  }

  private static void withKey(Metadata headers, String key) {
    if (key != null && !headers.containsKey(AllotRouting.KEY_HEADER)) {
      headers.put(AllotRouting.KEY_HEADER, key);
    }
  }

  /** One application call: one attempt, or two. Guarded by {@code this}. */
  private final class RetryingCall<Q, R> extends ClientCall<Q, R> {
    private final MethodDescriptor<Q, R> method;
    private final CallOptions options;
    private final Channel next;
    private ClientCall<Q, R> attempt;
    private Listener<R> listener;
    private Metadata headers;
    private Q message;
    private int requested;
    private boolean halfClosed;
    private boolean retried;
    private boolean cancelled;

    RetryingCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      this.method = method;
      this.options = options;
      this.next = next;
    }

    @Override
    public synchronized void start(Listener<R> listener, Metadata headers) {
      this.listener = listener;
      withKey(headers, options.getOption(AllotRouting.KEY));
      this.headers = new Metadata();
      this.headers.merge(headers);
      attempt = next.newCall(method, options);
      attempt.start(new AttemptListener(), headers);
    }

    @Override
    public synchronized void request(int n) {
      requested += n;
      attempt.request(n);
    }

    @Override
    public synchronized void cancel(String why, Throwable cause) {
      cancelled = true;
      if (attempt != null) {
        attempt.cancel(why, cause);
      }
    }

    @Override
    public synchronized void halfClose() {
      halfClosed = true;
      attempt.halfClose();
    }

    @Override
    public synchronized void sendMessage(Q m) {
      message = m;
      attempt.sendMessage(m);
    }

    @Override
    public synchronized boolean isReady() {
      return attempt.isReady();
    }

    @Override
    public synchronized void setMessageCompression(boolean enabled) {
      attempt.setMessageCompression(enabled);
    }

    /** Holds back the headers until a message or the close shows whether this attempt is the one that counts. */
    private final class AttemptListener extends Listener<R> {
      private Metadata heldHeaders;
      private boolean committed;

      @Override
      public void onHeaders(Metadata h) {
        heldHeaders = h;
      }

      @Override
      public void onMessage(R m) {
        commit();
        listener.onMessage(m);
      }

      @Override
      public void onReady() {
        listener.onReady();
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        if (!committed && status.getCode() == Status.Code.FAILED_PRECONDITION) {
          String owner = trailers.get(AllotRouting.OWNER_TRAILER);
          if (owner != null && retry(owner)) {
            return;
          }
        }
        commit();
        listener.onClose(status, trailers);
      }

      private void commit() {
        if (!committed) {
          committed = true;
          if (heldHeaders != null) {
            listener.onHeaders(heldHeaders);
          }
        }
      }
    }

    /** Starts the second attempt, to {@code owner}; false if this call may not be re-sent. */
    private boolean retry(String owner) {
      synchronized (this) {
        if (retried || cancelled || !halfClosed || message == null) {
          return false;
        }
        retried = true;
        reRouted.incrementAndGet();
        reroutes.computeIfAbsent(String.valueOf(next.authority()), RouteMeters::reroutes).increment();
        attempt = next.newCall(method, options.withOption(AllotRouting.OWNER_HINT, owner));
        attempt.start(new AttemptListener(), headers);
        if (requested > 0) {
          attempt.request(requested);
        }
        attempt.sendMessage(message);
        attempt.halfClose();
      }
      return true;
    }
  }
}
