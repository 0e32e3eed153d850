package io.allot.sim;

import io.allot.store.MemberRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The member processes (a {@link SimProcess}: a real divider and its {@link SimApp}): a new one per restart, sometimes two at once
 * for one id. Not thread-safe (confined to the simulation's thread).
 */
final class Fleet {

  /** One process of a member id. */
  record Proc(SimProcess member, SimApp app) {
    boolean up() {
      return member.phase() == SimProcess.Phase.STARTING || member.phase() == SimProcess.Phase.RUNNING
          || member.phase() == SimProcess.Phase.CANCELLING;
    }

    boolean running() {
      return member.phase() == SimProcess.Phase.RUNNING;
    }
  }

  private final Sim sim;
  private final Network net;
  private final SimStore store;
  private final Trace trace;
  private final Ledger ledger;
  private final Fibers fibers;
  private final SimConfig config;
  private final Consumer<Proc> onFenced;
  /** Every id a process was started for. */
  private final Set<String> ids = new TreeSet<>();
  /** Every process that may still be up, in start order. */
  private final List<Proc> procs = new ArrayList<>();
  private final Map<String, Integer> incarnations = new TreeMap<>();

  Fleet(Sim sim, Network net, SimStore store, Trace trace, Ledger ledger, Fibers fibers, SimConfig config,
      Consumer<Proc> onFenced) {
    this.fibers = fibers;
    this.sim = sim;
    this.net = net;
    this.store = store;
    this.trace = trace;
    this.ledger = ledger;
    this.config = config;
    this.onFenced = onFenced;
  }

  /**
   * Starts a new process for {@code id}, even if another one is up (a duplicate: a supervisor restarted a frozen
   * process, or two hosts advertise one address; the store lets only one register at a time).
   */
  Proc start(String id) {
    int incarnation = incarnations.merge(id, 1, Integer::sum);
    SimProcess m = new SimProcess(sim, net, store, trace, fibers, ledger, config, id, incarnation);
    Proc p = new Proc(m, m.app());
    m.onFenced(() -> onFenced.accept(p));
    ids.add(id);
    procs.removeIf(q -> !q.up());
    procs.add(p);
    m.start(net);
    return p;
  }

  /** kill -9. */
  void kill(Proc p) {
    p.app().killed();
    p.member().kill();
  }

  /** Every id (host: {@code m3}) a process was started for, sorted. */
  List<String> ids() {
    return List.copyOf(ids);
  }

  /** Every process that is up (starting, running or cancelling), duplicates included, in start order. */
  List<Proc> up() {
    return procs.stream().filter(Proc::up).toList();
  }

  /** Every process that runs (started, not cancelling), duplicates included, in start order. */
  List<Proc> running() {
    return procs.stream().filter(Proc::running).toList();
  }

  /** Ids that no process is up for, sorted. */
  List<String> down() {
    return ids.stream().filter(id -> procs.stream().noneMatch(p -> p.up() && p.member().host().equals(id))).toList();
  }

  /** Ids that some process is up for, sorted. */
  List<String> upIds() {
    List<String> down = down();
    return ids.stream().filter(id -> !down.contains(id)).toList();
  }

  /**
   * The process that speaks for member {@code id} ({@code m3:1}): the up one that holds the session the store has for
   * the id (an oracle read), else the last one started that is up; null if none is up.
   */
  Proc speaker(String id) {
    MemberRecord r = store.store().membership(SimProcess.POOL).members().get(id);
    Proc last = null;
    for (Proc p : procs) {
      if (p.up() && p.member().id().equals(id)) {
        if (r != null && p.member().session().orElse(0) == r.session()) {
          return p;
        }
        last = p;
      }
    }
    return last;
  }
}
