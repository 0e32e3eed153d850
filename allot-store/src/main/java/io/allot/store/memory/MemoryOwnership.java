package io.allot.store.memory;

import io.allot.store.Handoff;
import io.allot.store.Ownership;
import io.allot.store.Topic;
import io.allot.store.UnitHold;
import io.allot.store.UnitOwner;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * {@link Ownership} of one pool of the {@link MemoryStore}: the owners and holds of {@link MemoryState}, checked
 * against its registrations, counters and lost-state guards, under the state's lock. A cheap immutable view.
 */
final class MemoryOwnership extends MemoryPoolView implements Ownership {
  MemoryOwnership(MemoryState state, String pool) {
    super(state, pool);
  }

  @Override
  public OptionalLong claim(String unit, String member, long session) {
    MemoryState.checkId(member);
    Objects.requireNonNull(unit, "unit");
    return s.locked(() -> claimLocked(unit, member, session));
  }

  @Override
  public Map<String, Long> claimAll(List<String> units, String member, long session) {
    MemoryState.checkId(member);
    units.forEach(u -> Objects.requireNonNull(u, "unit"));
    return s.locked(() -> {
      Map<String, Long> out = new LinkedHashMap<>();
      for (String unit : units) {
        OptionalLong token = claimLocked(unit, member, session);
        if (token.isPresent()) {
          out.put(unit, token.getAsLong());
        }
      }
      return out;
    });
  }

  private OptionalLong claimLocked(String unit, String member, long session) {
    if (s.currentReg(pool, member, session) == null) {
      return OptionalLong.empty();
    }
    Map<String, MemoryState.Own> owns = s.ownership.computeIfAbsent(pool, p -> new HashMap<>());
    MemoryState.Own o = owns.get(unit);
    if (o != null && o.member().equals(member) && o.session() == session) {
      return OptionalLong.of(o.token());
    }
    if (s.nanos() - s.guardNotBefore(pool) < 0) {
      return OptionalLong.empty(); // waiting out the lost-state guard
    }
    if (o != null) {
      MemoryState.Reg owner = s.registrations.getOrDefault(pool, Map.of()).get(o.member());
      if (owner != null && owner.session() == o.session() && !s.expiredWithMargin(owner)) {
        return OptionalLong.empty(); // owned by a live session, or one expired less than the clock margin ago
      }
    }
    long token = s.nextCounter(pool);
    owns.put(unit, new MemoryState.Own(member, session, token));
    return OptionalLong.of(token);
  }

  @Override
  public boolean release(String unit, String member, long token) {
    MemoryState.checkId(member);
    Objects.requireNonNull(unit, "unit");
    return s.locked(() -> {
      Map<String, MemoryState.Own> owns = s.ownership.get(pool);
      MemoryState.Own o = owns == null ? null : owns.get(unit);
      if (o == null || !o.member().equals(member) || o.token() != token) {
        return false;
      }
      owns.remove(unit);
      s.announce(Topic.releases(pool), unit);
      return true;
    });
  }

  @Override
  public Set<String> releaseAll(Map<String, Long> tokens, String member) {
    MemoryState.checkId(member);
    synchronized (s.lock) {
      Set<String> out = new LinkedHashSet<>();
      tokens.forEach((unit, token) -> {
        if (release(unit, member, Objects.requireNonNull(token, "token"))) {
          out.add(unit);
        }
      });
      return out;
    }
  }

  @Override
  public Set<String> handOffAll(List<Handoff> handoffs, String member) {
    MemoryState.checkId(member);
    synchronized (s.lock) {
      Set<String> out = new LinkedHashSet<>();
      for (Handoff h : handoffs) {
        Map<String, MemoryState.Own> owns = s.ownership.get(pool);
        MemoryState.Own o = owns == null ? null : owns.get(h.unit());
        if (o == null || !o.member().equals(member) || o.token() != h.token()) {
          continue;
        }
        owns.remove(h.unit());
        out.add(h.unit());
        MemoryState.Reg to = h.to() == null || h.to().equals(member) ? null
            : s.registrations.getOrDefault(pool, Map.of()).get(h.to());
        if (to != null && s.currentReg(pool, h.to(), to.session()) != null
            && s.nanos() - s.guardNotBefore(pool) >= 0) {
          long token = s.nextCounter(pool);
          owns.put(h.unit(), new MemoryState.Own(h.to(), to.session(), token));
          s.announce(Topic.releases(pool), Handoff.grantMessage(new UnitOwner(h.unit(), h.to(), to.session(), token)));
        } else {
          s.announce(Topic.releases(pool), h.unit());
        }
      }
      return out;
    }
  }

  @Override
  public boolean release(String unit, String member, long token, Duration hold) {
    Objects.requireNonNull(hold, "hold");
    if (hold.isNegative()) {
      throw new IllegalArgumentException("hold must be >= 0 but was " + hold);
    }
    synchronized (s.lock) {
      boolean released = release(unit, member, token);
      if (released && !hold.isZero()) {
        s.holds.computeIfAbsent(pool, p -> new HashMap<>())
            .put(unit, new UnitHold(unit, member, s.now() + hold.toMillis()));
      }
      return released;
    }
  }

  @Override
  public Map<String, UnitHold> holds() {
    return s.locked(() -> {
      long now = s.now();
      Map<String, UnitHold> live = s.holds.getOrDefault(pool, new HashMap<>());
      live.values().removeIf(h -> h.untilMillis() <= now);
      return Map.copyOf(live);
    });
  }

  @Override
  public Map<String, UnitOwner> ownersOf(Collection<String> units) {
    return s.locked(() -> {
      Map<String, MemoryState.Own> owns = s.ownership.getOrDefault(pool, Map.of());
      Map<String, UnitOwner> out = new LinkedHashMap<>();
      for (String u : units) {
        MemoryState.Own o = owns.get(Objects.requireNonNull(u, "unit"));
        if (o != null) {
          out.put(u, new UnitOwner(u, o.member(), o.session(), o.token()));
        }
      }
      return out;
    });
  }

  @Override
  public Map<String, UnitOwner> owners() {
    return s.locked(() -> {
      Map<String, UnitOwner> out = new LinkedHashMap<>();
      s.ownership.getOrDefault(pool, Map.of())
          .forEach((u, o) -> out.put(u, new UnitOwner(u, o.member(), o.session(), o.token())));
      return out;
    });
  }

  @Override
  public boolean validToken(String unit, String member, long session, long token) {
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(member, "member");
    return s.locked(() -> {
      MemoryState.Own o = s.ownership.getOrDefault(pool, Map.of()).get(unit);
      return o != null && o.token() == token && o.member().equals(member) && o.session() == session
          && s.currentReg(pool, member, session) != null;
    });
  }
}
