package io.allot.route;

import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.Store;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The live members of a pool by the distributor's rule: a member with a record while its lease plus the store's
 * clock margin has not ended by the store's clock; a services-list entry without a record (an original-style
 * service) with {@link MemberMeta#DEFAULT default metadata} (weight 1, no version). Immutable.
 *
 * @param pool                 the pool
 * @param members              live member id to its metadata, sorted by id
 * @param known                whether the pool has any member record or services-list entry at all
 * @param millisToNextLeaseEnd store milliseconds until the next live lease (plus margin) ends; {@link Long#MAX_VALUE}:
 *                             none
 */
public record LiveMembers(String pool, Map<String, MemberMeta> members, boolean known, long millisToNextLeaseEnd) {

  public LiveMembers {
    members = Collections.unmodifiableMap(new TreeMap<>(members));
  }

  /** Reads the pool's live members from {@code store} (store clock first, then records, then the services list). */
  public static LiveMembers read(Store store, String pool) {
    long margin = store.safety().clockMargin().toMillis();
    long now = store.clock().timeMillis(); // before the records: a lease seen ended had ended when they were read
    Map<String, MemberRecord> records = store.membership(pool).members();
    List<String> list = store.seedKeys().list(pool);
    TreeMap<String, MemberMeta> live = new TreeMap<>();
    long next = Long.MAX_VALUE;
    for (MemberRecord r : records.values()) {
      long downAt = r.leaseUntilMillis() + margin;
      if (downAt < r.leaseUntilMillis()) {
        downAt = Long.MAX_VALUE; // a lease "forever"
      }
      if (now < downAt) {
        live.put(r.id(), r.meta());
        next = Math.min(next, downAt - now);
      }
    }
    for (String id : list) {
      if (!records.containsKey(id)) {
        live.putIfAbsent(id, MemberMeta.DEFAULT);
      }
    }
    return new LiveMembers(pool, live, !records.isEmpty() || !list.isEmpty(), next);
  }
}
