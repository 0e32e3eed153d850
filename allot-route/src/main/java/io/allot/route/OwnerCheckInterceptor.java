package io.allot.route;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Collection;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A member's guard against calls routed with a stale table: a call whose {@code allot-key} header names a unit this
 * member does not own fails at once, before the handler runs, with {@link Status.Code#FAILED_PRECONDITION} and the
 * trailer {@code allot-owner: <member id>} naming the current owner as far as this member knows (absent when it
 * does not). A client with {@link OwnerRetryInterceptor} sends the call once more, to that owner. Calls without the
 * header pass. Thread-safe when its functions are.
 */
public final class OwnerCheckInterceptor implements ServerInterceptor {
  private final Predicate<String> owns;
  private final Function<String, String> ownerOf;

  /**
   * @param owns    whether this member owns a unit now (e.g. the worker SDK's running units)
   * @param ownerOf the current owner of a unit, or null if unknown (e.g. {@link TableView#ownerOf})
   */
  public OwnerCheckInterceptor(Predicate<String> owns, Function<String, String> ownerOf) {
    this.owns = Objects.requireNonNull(owns, "owns");
    this.ownerOf = Objects.requireNonNull(ownerOf, "ownerOf");
  }

  /** A guard over the units this member owns now, as {@code ownedUnits} tells at each call. */
  public static OwnerCheckInterceptor forUnits(Supplier<? extends Collection<String>> ownedUnits,
      Function<String, String> ownerOf) {
    Objects.requireNonNull(ownedUnits, "ownedUnits");
    return new OwnerCheckInterceptor(u -> ownedUnits.get().contains(u), ownerOf);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    String key = headers.get(AllotRouting.KEY_HEADER);
    if (key == null || owns.test(key)) {
      return next.startCall(call, headers);
    }
    String owner = ownerOf.apply(key);
    Metadata trailers = new Metadata();
    if (owner != null) {
      trailers.put(AllotRouting.OWNER_TRAILER, owner);
    }
    call.close(Status.FAILED_PRECONDITION.withDescription("allot: this member does not own unit '" + key + "'"
        + (owner == null ? "; its owner is unknown here" : "; owner: " + owner)), trailers);
    return new ServerCall.Listener<>() {};
  }
}
