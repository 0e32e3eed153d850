package io.allot.worker;

import io.allot.store.events.EventKind;
import io.allot.store.events.EventWriter;
import io.allot.store.events.NewEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a member tells the event history, as itself (its member id): a self-fence, and claims refused (a unit once
 * per refusal streak: the refusals of a handoff repeat every round until the previous owner lets go, and the history
 * notes the first). Written {@link EventWriter#writeLater later}, so a member fencing itself under its state lock
 * never waits for the store. {@link #claims} is called by the reconciliation loop's thread only.
 */
final class WorkerEvents {
  /** How many refused units one event names. */
  static final int NAMED = 10;

  private final EventWriter writer;
  private final String pool;
  /** Units refused and not granted since; loop thread only. */
  private final Set<String> refused = new HashSet<>();

  WorkerEvents(EventWriter writer, String pool) {
    this.writer = writer;
    this.pool = pool;
  }

  /** The member fenced itself: {@code stopped} units stopped. Any thread. */
  void selfFenced(String memberId, String reason, int stopped) {
    writer.writeLater(new NewEvent(pool, EventKind.SELF_FENCED, actor(memberId), memberId, reason + "; " + stopped
        + " units stopped"));
  }

  /** A claim batch of {@code asked} was answered with {@code granted} (unit to token). Loop thread. */
  void claims(String memberId, Collection<String> asked, Map<String, Long> granted) {
    refused.removeAll(granted.keySet());
    List<String> fresh = new ArrayList<>();
    for (String u : asked) {
      if (!granted.containsKey(u) && refused.add(u)) {
        fresh.add(u);
      }
    }
    if (fresh.isEmpty()) {
      return;
    }
    String named = String.join(", ", fresh.subList(0, Math.min(NAMED, fresh.size())))
        + (fresh.size() > NAMED ? ", and " + (fresh.size() - NAMED) + " more" : "");
    writer.writeLater(new NewEvent(pool, EventKind.CLAIM_REFUSED, actor(memberId),
        fresh.size() == 1 ? fresh.get(0) : fresh.size() + " units",
        "claim refused (another member holds or is still stopping it, or the pool waits out a store restart): "
            + named));
  }

  private static String actor(String memberId) {
    return memberId == null || memberId.isEmpty() ? "member" : memberId;
  }
}
