package io.allot.sim.jobs;

import io.allot.sim.Sim;
import io.allot.sim.SimReport;
import io.allot.sim.SimViolation;
import io.allot.sim.Trace;
import io.allot.store.jobs.Job;
import io.allot.store.jobs.JobQueue;
import io.allot.store.memory.MemoryStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The deterministic job simulator: {@code clients} simulated clients call one job queue of the real {@link
 * MemoryStore} whose clock is the simulator's virtual clock ({@link Sim}), each after a random think time (now and
 * then a long one: {@link JobOp#ADVANCE}), drawing their ops from a {@link JobMix}. After every call the {@link
 * JobLedger} checks its invariants (no job lost, one accepted completion per attempt, stale tokens refused, tokens
 * increasing, attempts within the maximum, the rate bound) against the whole queue, and a refused completion or extend
 * must have left every job exactly as it was. One seed gives one run, call for call: the trace's hash says so, and a
 * failure names the seed and the last calls.
 *
 * <p>Not thread-safe: a run is confined to the caller's thread.
 */
public final class JobSim {
  private JobSim() {}

  /** One run of {@code seed}: {@code steps} calls by {@code clients} clients; trace lines also to {@code sink}. */
  public static JobSimReport run(long seed, int clients, int steps, JobMix mix, Consumer<String> sink) {
    Sim sim = new Sim(seed);
    Trace trace = new Trace(sim, 40, sink);
    JobLedger ledger = new JobLedger(0);
    long[] calls = {0};
    Optional<SimReport.Failure> failure = Optional.empty();
    try (MemoryStore store = new MemoryStore(sim::now)) {
      JobQueue queue = store.jobQueue("sim");
      // tokens are store time in µs, whose origin comes from the wall clock: traced relative to it
      long tokenBase = store.clock().timeMillis() * 1_000L;
      JobClient.Shared shared = new JobClient.Shared();
      trace.add("sim", "seed " + seed + ", " + clients + " clients, " + steps + " steps, mix " + mix.name());
      for (int i = 1; i <= clients; i++) {
        JobClient c = new JobClient("c" + i, queue, ledger, sim::now, mix, shared);
        sim.after(sim.uniform(0, Sim.ms(5)), null, () -> act(sim, trace, c, queue, ledger, calls, tokenBase));
      }
      try {
        while (calls[0] < steps && sim.step()) {
          // every call is checked in act()
        }
      } catch (SimViolation v) {
        failure = Optional.of(failure(sim, trace, v.invariant(), v.getMessage(), calls[0]));
      } catch (RuntimeException e) {
        failure = Optional.of(failure(sim, trace, "crash", e.toString(), calls[0]));
      }
    }
    return new JobSimReport(seed, mix.name(), calls[0], (sim.now() - Sim.EPOCH) / 1_000_000L, trace.hash(),
        ledger.counts(), failure);
  }

  private static void act(Sim sim, Trace trace, JobClient c, JobQueue queue, JobLedger ledger, long[] calls,
      long tokenBase) {
    JobOp op = c.draw(sim.random());
    boolean mayRefuse = op == JobOp.EXTEND || op == JobOp.FINISH || op == JobOp.FINISH_ALL || op == JobOp.FAIL;
    Map<String, Optional<Job>> before = mayRefuse ? snapshot(queue, ledger) : Map.of();
    JobClient.Call call = c.act(op, sim.random());
    calls[0]++;
    trace.add(c.name(), call.describe(tokenBase));
    if (call.refused()) {
      Map<String, Optional<Job>> after = snapshot(queue, ledger);
      List<String> refusedKeys = call.op() == JobOp.FINISH_ALL ? call.keys() : List.copyOf(after.keySet());
      for (String k : refusedKeys) {
        Optional<Job> was = before.getOrDefault(k, Optional.empty());
        Optional<Job> is = after.getOrDefault(k, Optional.empty());
        if (call.op() == JobOp.FINISH_ALL && is.map(j -> j.status() == io.allot.store.jobs.JobStatus.FINISHED)
            .orElse(false) && was.map(j -> j.status() != io.allot.store.jobs.JobStatus.FINISHED).orElse(false)) {
          continue; // this key's finish was one of the accepted ones
        }
        if (!was.equals(is)) {
          throw new SimViolation("refused changes nothing", call + " changed " + k + ": " + was + " -> " + is);
        }
      }
    }
    ledger.checkQueue(queue::get, sim.now());
    long think = call.op() == JobOp.ADVANCE ? sim.uniform(Sim.ms(200), Sim.ms(2_000)) : sim.uniform(0, Sim.ms(10));
    sim.after(think, null, () -> act(sim, trace, c, queue, ledger, calls, tokenBase));
  }

  /** Every job the ledger knows, as the store has it now. */
  private static Map<String, Optional<Job>> snapshot(JobQueue queue, JobLedger ledger) {
    Map<String, Optional<Job>> m = new HashMap<>();
    for (String k : ledger.live()) {
      m.put(k, queue.get(k));
    }
    return m;
  }

  private static SimReport.Failure failure(Sim sim, Trace trace, String invariant, String message, long step) {
    return new SimReport.Failure(invariant, message, step, (sim.now() - Sim.EPOCH) / 1_000_000L, trace.tail());
  }
}
