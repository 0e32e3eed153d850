package io.allot.store.memory;

import io.allot.store.MemberConflictException;
import io.allot.store.MemberMeta;
import io.allot.store.MemberRecord;
import io.allot.store.Membership;
import io.allot.store.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link Membership} of one pool of the {@link MemoryStore}: the registrations of {@link MemoryState} and the pool's
 * services list (a seed key), under the state's lock. A cheap immutable view.
 */
final class MemoryMembership extends MemoryPoolView implements Membership {
  MemoryMembership(MemoryState state, String pool) {
    super(state, pool);
  }

  @Override
  public long register(String id, MemberMeta meta, Duration ttl) {
    MemoryState.checkId(id);
    Objects.requireNonNull(meta, "meta");
    long ttlNanos = MemoryState.ttlNanos(ttl);
    return s.locked(() -> {
      List<String> list = s.listOrNull(pool); // WRONGTYPE before any change
      MemoryState.Reg old = s.registrations.getOrDefault(pool, Map.of()).get(id);
      if (old != null && !s.expiredWithMargin(old)) {
        throw new MemberConflictException(pool, id,
            s.leaseUntilMillis(old.untilNanos()) + s.safety.clockMargin().toMillis());
      }
      s.guardNotBefore(pool);
      long session = s.nextCounter(pool);
      s.registrations.computeIfAbsent(pool, p -> new HashMap<>())
          .put(id, new MemoryState.Reg(meta, session, s.nanos() + ttlNanos));
      if (list == null) {
        list = new ArrayList<>();
        s.data.put(pool, list);
      }
      if (!list.contains(id)) {
        list.add(0, id);
      }
      s.announce(Topic.members(pool), id);
      return session;
    });
  }

  @Override
  public boolean renew(String id, long session, Duration ttl) {
    MemoryState.checkId(id);
    long ttlNanos = MemoryState.ttlNanos(ttl);
    return s.locked(() -> {
      MemoryState.Reg r = s.currentReg(pool, id, session);
      if (r == null) {
        return false;
      }
      s.registrations.get(pool).put(id, new MemoryState.Reg(r.meta(), session, s.nanos() + ttlNanos));
      return true;
    });
  }

  @Override
  public boolean update(String id, long session, MemberMeta meta) {
    MemoryState.checkId(id);
    Objects.requireNonNull(meta, "meta");
    return s.locked(() -> {
      MemoryState.Reg r = s.currentReg(pool, id, session);
      if (r == null) {
        return false;
      }
      s.registrations.get(pool).put(id, new MemoryState.Reg(meta, session, r.untilNanos()));
      s.announce(Topic.members(pool), id);
      return true;
    });
  }

  @Override
  public void deregister(String id, long session) {
    MemoryState.checkId(id);
    s.lockedRun(() -> {
      List<String> list = s.listOrNull(pool); // WRONGTYPE before any change
      Map<String, MemoryState.Reg> regs = s.registrations.get(pool);
      MemoryState.Reg r = regs == null ? null : regs.get(id);
      if (r == null || r.session() != session) {
        return;
      }
      regs.remove(id);
      if (list != null) {
        list.removeIf(id::equals);
        if (list.isEmpty()) {
          s.data.remove(pool);
        }
      }
      s.announce(Topic.members(pool), id);
    });
  }

  @Override
  public boolean removeIfExpired(String id, long session) {
    MemoryState.checkId(id);
    return s.locked(() -> {
      Map<String, MemoryState.Reg> regs = s.registrations.get(pool);
      MemoryState.Reg r = regs == null ? null : regs.get(id);
      if (r == null || r.session() != session || !s.expiredWithMargin(r)) {
        return false;
      }
      deregister(id, session);
      return true;
    });
  }

  @Override
  public Map<String, MemberRecord> members() {
    return s.locked(() -> {
      Map<String, MemberRecord> out = new LinkedHashMap<>();
      s.registrations.getOrDefault(pool, Map.of()).forEach((id, r) ->
          out.put(id, new MemberRecord(id, r.meta(), r.session(), s.leaseUntilMillis(r.untilNanos()))));
      return out;
    });
  }
}
