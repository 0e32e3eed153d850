package io.allot.route;

import io.allot.core.hash.Hashing;
import io.allot.store.MemberMeta;
import io.allot.store.Store;
import java.util.Map;

/**
 * Where {@code allot_owner} with the {@code consistent_hash} fallback sends a key, computed from the store alone
 * (for {@code allot route} and tools): the key's owner in the table when it is a live member, else the weighted
 * rendezvous winner over the live members. A client's picker also needs the member READY; this lookup cannot know
 * connectivity and assumes every live member is.
 */
public final class OwnerLookup {
  private OwnerLookup() {}

  /**
   * One answer.
   *
   * @param key    the key
   * @param member the member picked, or null if the pool has no live member
   * @param owner  true if {@code member} is the key's owner in the table; false for a fallback pick
   * @param reason why (for people): the table and epoch, or why the fallback picked
   */
  public record Route(String key, String member, boolean owner, String reason) {}

  /** Where {@code key} goes in {@code pool} with the table {@code tableKey}. */
  public static Route route(Store store, String pool, String tableKey, String key) {
    LiveMembers live = LiveMembers.read(store, pool);
    RouteTable table = RouteTable.read(store.tables(), tableKey);
    String owner = table.ownerOf(key);
    String where = "table " + tableKey + " epoch " + table.epoch();
    if (owner != null && live.members().containsKey(owner)) {
      return new Route(key, owner, true, "owner in " + where);
    }
    String fallback = consistentHash(live.members(), key);
    if (fallback == null) {
      return new Route(key, null, false, live.known() ? "pool '" + pool + "' has no live member"
          : "pool '" + pool + "' is unknown: no member record and no services list entry");
    }
    String why = owner == null ? "no owner in " + where : "owner " + owner + " in " + where + " is not live";
    return new Route(key, fallback, false, "fallback: " + why + "; consistent hash over " + live.members().size()
        + " live members");
  }

  /**
   * The member {@code allot_consistent_hash} picks for {@code key} among {@code members}, all READY: the weighted
   * rendezvous winner of the key's slot (weights are affinities; all count 1 when every affinity is 0), or null if
   * there is none.
   */
  public static String consistentHash(Map<String, MemberMeta> members, String key) {
    long h = Pickers.Rendezvous.slotHash(Pickers.Rendezvous.slot(Pickers.Rendezvous.keyHash(key)));
    String best = null;
    double bestScore = Double.NEGATIVE_INFINITY;
    boolean anyWeight = members.values().stream().anyMatch(m -> m.affinity() > 0);
    for (Map.Entry<String, MemberMeta> e : members.entrySet()) {
      int w = anyWeight ? e.getValue().affinity() : 1;
      if (w == 0) {
        continue;
      }
      double score = -w / Math.log(Hashing.unitInterval(Hashing.mix64(h ^ Hashing.hash64(e.getKey()))));
      if (score > bestScore) {
        bestScore = score;
        best = e.getKey();
      }
    }
    return best;
  }
}
