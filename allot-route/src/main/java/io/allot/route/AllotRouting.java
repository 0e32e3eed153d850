package io.allot.route;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.EquivalentAddressGroup;
import io.grpc.Metadata;
import io.grpc.NameResolver;
import java.util.Map;

/**
 * The public names of allot's gRPC routing: how a call names its unit key, and the attributes the {@code allot://}
 * resolver gives the load-balancing policies. Constants only.
 *
 * <p>A call's key is taken from {@link #KEY} in its {@link CallOptions} first, then from the {@link #KEY_HEADER}
 * metadata header. The {@code allot_owner} policy sends it to the key's owner; {@code allot_consistent_hash} and the
 * sticky {@code allot_canary} hash it.
 */
public final class AllotRouting {
  private AllotRouting() {}

  /** The metadata header carrying a call's unit key: {@code allot-key}. */
  public static final Metadata.Key<String> KEY_HEADER = Metadata.Key.of("allot-key", Metadata.ASCII_STRING_MARSHALLER);

  /** The call option carrying a call's unit key (wins over {@link #KEY_HEADER}). */
  public static final CallOptions.Key<String> KEY = CallOptions.Key.create("allot-key");

  /**
   * The trailer a member's {@link OwnerCheckInterceptor} sets on a call for a key it does not own: the member id of
   * the current owner, as far as that member knows.
   */
  public static final Metadata.Key<String> OWNER_TRAILER =
      Metadata.Key.of("allot-owner", Metadata.ASCII_STRING_MARSHALLER);

  /**
   * The call option {@link OwnerRetryInterceptor} sets on its one re-sent call: the member the previous attempt was
   * told owns the key. {@code allot_owner} picks that member when it is READY.
   */
  public static final CallOptions.Key<String> OWNER_HINT = CallOptions.Key.create("allot-owner-hint");

  // ---- per address (EquivalentAddressGroup attributes) ----

  /** The member id ({@code host:port}). */
  @EquivalentAddressGroup.Attr
  public static final Attributes.Key<String> MEMBER_ID = Attributes.Key.create("allot.member-id");
  /** The member's weight: its affinity (original-style members without a record: 1). */
  @EquivalentAddressGroup.Attr
  public static final Attributes.Key<Integer> WEIGHT = Attributes.Key.create("allot.weight");
  /** The member's version attribute; absent when it published none. */
  @EquivalentAddressGroup.Attr
  public static final Attributes.Key<String> VERSION = Attributes.Key.create("allot.version");
  /** The member's zone attribute; absent when it published none. */
  @EquivalentAddressGroup.Attr
  public static final Attributes.Key<String> ZONE = Attributes.Key.create("allot.zone");
  /** Every attribute the member published (version, zone and labels), sorted by name. */
  @EquivalentAddressGroup.Attr
  public static final Attributes.Key<Map<String, String>> LABELS = Attributes.Key.create("allot.labels");
  /** The epoch of the assignment table the resolution was made with. */
  @EquivalentAddressGroup.Attr
  public static final Attributes.Key<Long> TABLE_EPOCH = Attributes.Key.create("allot.table-epoch");

  // ---- per resolution (ResolutionResult attributes) ----

  /** The pool's published assignment table (unit to owner). */
  @NameResolver.ResolutionResultAttr
  public static final Attributes.Key<RouteTable> TABLE = Attributes.Key.create("allot.table");
  /** The live canary weights of the pool (version to weight), empty when none are set ({@link LiveWeights}). */
  @NameResolver.ResolutionResultAttr
  public static final Attributes.Key<Map<String, Integer>> LIVE_WEIGHTS = Attributes.Key.create("allot.live-weights");

  /** The version {@code allot_canary} gives a member that published none. */
  public static final String UNVERSIONED = "unversioned";
}
