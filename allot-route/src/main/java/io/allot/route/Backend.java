package io.allot.route;

import io.allot.core.hash.Hashing;
import io.grpc.Attributes;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.Subchannel;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One member as a policy sees it: its subchannel (one per address, for as long as the address is resolved), what it
 * published, its connectivity state and its outstanding calls. The pick results are made once, so a pick allocates
 * nothing.
 */
final class Backend {
  final Subchannel subchannel;
  /** Outstanding calls picked onto this backend through {@link #countedPick}; atomic, any thread. */
  final AtomicInteger inFlight = new AtomicInteger();
  /**
   * Moving average of the latency of calls picked through {@link #countedPick} (ns; 0: none yet), from stream
   * creation to close, weight 1/4 per call. Racy read-modify-write by design: a lost update only delays the average
   * by one call. {@link Pickers.LeastRequest} also lets it decay while the backend loses comparisons.
   */
  volatile long latencyNanos;
  /** A pick of this backend. */
  final PickResult pick;
  /** A pick of this backend that counts its call in {@link #inFlight} until the stream closes. */
  final PickResult countedPick;
  /** What the member published; written on the synchronization context, read by pickers built there. */
  volatile Member member;
  /** The subchannel's state; confined to the synchronization context. */
  ConnectivityState state = ConnectivityState.IDLE;

  Backend(Subchannel subchannel, Member member) {
    this.subchannel = subchannel;
    this.member = member;
    this.pick = PickResult.withSubchannel(subchannel);
    ClientStreamTracer.Factory counting = new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
        return new ClientStreamTracer() {
          /** Set at creation, read at close (the transport orders the two). */
          private long created;

          @Override
          public void streamCreated(Attributes transportAttrs, Metadata headers) {
            created = System.nanoTime();
            inFlight.incrementAndGet();
          }

          @Override
          public void streamClosed(Status status) {
            inFlight.decrementAndGet();
            if (created != 0) {
              long took = Math.max(1, System.nanoTime() - created);
              long avg = latencyNanos;
              latencyNanos = avg == 0 ? took : avg + (took - avg) / 4;
            }
          }
        };
      }
    };
    this.countedPick = PickResult.withSubchannel(subchannel, counting);
  }

  /**
   * What one member published, as the resolver passed it. Immutable.
   *
   * @param id      the member id
   * @param weight  its weight (affinity), at least 0
   * @param version its version, or {@link AllotRouting#UNVERSIONED}
   * @param zone    its zone, or null
   * @param labels  every attribute it published
   * @param idHash  {@link Hashing#hash64} of the id, for rendezvous hashing
   */
  record Member(String id, int weight, String version, String zone, Map<String, String> labels, long idHash) {

    /** From the resolver's attributes; an address without them (another resolver) gets weight 1, no version. */
    static Member of(EquivalentAddressGroup eag) {
      Attributes a = eag.getAttributes();
      String id = a.get(AllotRouting.MEMBER_ID);
      if (id == null) {
        id = eag.getAddresses().get(0).toString();
      }
      Integer w = a.get(AllotRouting.WEIGHT);
      String v = a.get(AllotRouting.VERSION);
      Map<String, String> labels = a.get(AllotRouting.LABELS);
      return new Member(id, w == null ? 1 : Math.max(0, w), v == null ? AllotRouting.UNVERSIONED : v,
          a.get(AllotRouting.ZONE), labels == null ? Map.of() : labels, Hashing.hash64(id));
    }
  }
}
