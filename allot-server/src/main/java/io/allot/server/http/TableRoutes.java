package io.allot.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.allot.store.MemberRecord;
import io.allot.store.Store;
import io.allot.store.StoreUnavailableException;
import io.allot.store.UnitOwner;
import io.allot.store.tasks.TaskSpec;
import io.allot.store.tasks.TaskSpecs;
import io.allot.tasks.service.MemberView;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code GET /pools/{pool}/table}: the published table of one pool next to who actually holds each unit.
 * {@code {"pool", "epoch": N|null, "units": [{"unit", "member", "owner", "token", "state"}], "members": [{"member",
 * "units", "ideal"}]}}. The units are this pool's only: those the table gives the pool's members, and those of its
 * source (its live long-running tasks, else the units list) that the table gives nobody; sorted by name.
 * {@code member} is the table's, {@code owner} and {@code token} those of the live claim (a claim whose member's
 * session ended or whose lease expired is no owner); {@code state} is {@code owned} (claimed by the table's member),
 * {@code handoff} (claimed by another member: moving) or {@code unowned} (no live claim). A member judged by pings
 * (an original-style service) never claims: it owns what the table gives it while it is up (token null). Each
 * member's {@code ideal} share is the units times its affinity over the affinity of the live members (0 when down).
 * Immutable.
 */
final class TableRoutes implements RouteGroup {
  private final Store store;
  private final TaskService tasks;
  private final String tableKey;

  /** The units of a pool without tasks come from the units list {@code tasks} names for it. */
  TableRoutes(Store store, TaskService tasks, String tableKey) {
    this.store = store;
    this.tasks = tasks;
    this.tableKey = tableKey;
  }

  @Override
  public ApiHandler.Reply route(ApiHandler.Call call, List<String> seg, ApiHandler api) {
    if (seg.size() != 3 || !seg.get(0).equals("pools") || !seg.get(2).equals("table")) {
      return null;
    }
    ApiHandler.allow(call.method(), "GET");
    try {
      return ApiHandler.Reply.json(200, table(seg.get(1)));
    } catch (StoreUnavailableException e) {
      throw RouteGroup.unavailable(e);
    }
  }

  private ObjectNode table(String pool) {
    List<MemberView> views = tasks.members(pool); // checks the pool; ping-judged members included
    Map<String, MemberView> byId = new LinkedHashMap<>();
    views.forEach(v -> byId.put(v.id(), v));
    Set<String> members = new TreeSet<>(byId.keySet());
    members.addAll(store.seedKeys().list(pool));
    Map<String, List<String>> fields = store.tables().units(tableKey);
    Map<String, String> inTable = new TreeMap<>();
    Map<String, Integer> counts = new TreeMap<>();
    for (String m : members) {
      List<String> us = fields.getOrDefault(m, List.of());
      us.forEach(u -> inTable.putIfAbsent(u, m));
      if (!us.isEmpty()) {
        counts.put(m, us.size());
      }
    }
    Set<String> units = new TreeSet<>(inTable.keySet());
    units.addAll(sourceUnits(pool));
    Map<String, UnitOwner> owners = store.ownership(pool).owners();
    Map<String, MemberRecord> records = store.membership(pool).members();
    long now = store.clock().timeMillis();

    ObjectNode o = TaskJson.MAPPER.createObjectNode();
    o.put("pool", pool);
    long epoch = store.tables().epoch(tableKey);
    if (epoch == 0) {
      o.putNull("epoch");
    } else {
      o.put("epoch", epoch);
    }
    ArrayNode ua = o.putArray("units");
    for (String u : units) {
      String member = inTable.get(u);
      UnitOwner claim = owners.get(u);
      MemberRecord holder = claim == null ? null : records.get(claim.member());
      boolean live = holder != null && holder.session() == claim.session() && holder.liveAt(now);
      ObjectNode uo = ua.addObject();
      uo.put("unit", u);
      uo.put("member", member);
      MemberView mv = member == null ? null : byId.get(member);
      if (live) {
        uo.put("owner", claim.member());
        uo.put("token", claim.token());
        uo.put("state", claim.member().equals(member) ? "owned" : "handoff");
      } else if (mv != null && mv.judgedBy().equals(MemberView.PING) && mv.up()) {
        uo.put("owner", member);
        uo.putNull("token");
        uo.put("state", "owned");
      } else {
        uo.putNull("owner");
        uo.putNull("token");
        uo.put("state", "unowned");
      }
    }
    long liveAffinity = views.stream().filter(MemberView::up).mapToLong(MemberView::affinity).sum();
    Set<String> shown = new LinkedHashSet<>(byId.keySet());
    shown.addAll(counts.keySet());
    ArrayNode ma = o.putArray("members");
    for (String m : shown) {
      MemberView v = byId.get(m);
      ObjectNode mo = ma.addObject();
      mo.put("member", m);
      mo.put("units", counts.getOrDefault(m, 0));
      mo.put("ideal", v == null || !v.up() || liveAffinity == 0 ? 0.0
          : (double) units.size() * v.affinity() / liveAffinity);
    }
    return o;
  }

  /** The units the pool distributes: its live task specs if it has any spec, else the units list. */
  private List<String> sourceUnits(String pool) {
    TaskSpecs specs = store.taskSpecs(pool);
    if (specs.version() != 0) {
      List<TaskSpec> all = specs.list();
      if (!all.isEmpty()) {
        List<String> live = new ArrayList<>();
        all.stream().filter(s -> !s.deleted()).forEach(s -> live.add(s.name()));
        return live;
      }
    }
    String unitsList = tasks.unitsListOf(pool);
    return unitsList == null ? List.of() : store.seedKeys().list(unitsList);
  }
}
