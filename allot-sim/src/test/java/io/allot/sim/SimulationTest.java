package io.allot.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The simulator's CI run: many seeds of the fixed protocol, every invariant after every event, and exact replays.
 *
 * <p>Properties: {@code -Dallot.sim.seeds=N} (seeds, default {@value #CI_SEEDS}), {@code -Dallot.sim.from=S} (first
 * seed, default 1), {@code -Dallot.sim.steps=N} (events of the fault phase, default {@value #CI_STEPS}), {@code
 * -Dallot.sim.strategy=NAME}, {@code -Dallot.sim.hole=NAME}; {@code -Dallot.sim.seed=S} replays that one seed and
 * prints its whole trace.
 */
class SimulationTest {
  /**
   * Sized for about 30 s on this 2-core machine under a loaded build (the real SDK's threads cost a thread switch per
   * resumption; see the README); wider searches take {@code -Dallot.sim.seeds}.
   */
  static final int CI_SEEDS = 60;
  static final int CI_STEPS = 5_000;

  @Test
  void everySeedKeepsEveryInvariant() {
    SimConfig config = configFromProperties();
    String replay = System.getProperty("allot.sim.seed");
    if (replay != null) {
      SimReport r = Simulation.run(Long.parseLong(replay), config, System.out::println);
      System.out.println(r.summary());
      if (config.hole() == Hole.NONE) {
        assertThat(r.ok()).as(r.details()).isTrue();
      }
      return;
    }
    int seeds = Integer.getInteger("allot.sim.seeds", CI_SEEDS);
    long from = Long.getLong("allot.sim.from", 1L);
    List<SimReport> failed = new ArrayList<>();
    Map<String, Long> totals = new TreeMap<>();
    long events = 0;
    long t0 = System.nanoTime();
    for (long seed = from; seed < from + seeds; seed++) {
      SimReport r = Simulation.run(seed, config);
      events += r.events();
      r.faults().forEach((k, n) -> totals.merge(k.toString(), (long) n, Long::sum));
      r.counts().forEach((k, n) -> totals.merge(k, n, Long::sum));
      if (!r.ok()) {
        failed.add(r);
      }
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    System.out.printf(Locale.ROOT, "simulator: %d seeds from %d x %d steps (%s, %s): %d events in %.1f s, %d failed;"
        + " %s%n", seeds, from, config.steps(), config.strategy(), config.hole(), events, secs, failed.size(), totals);
    assertThat(failed).as(() -> failed.stream().limit(3).map(r -> r.details() + "\nreplay: ./mvnw -B -o -pl allot-sim"
        + " test -Dtest=SimulationTest#everySeedKeepsEveryInvariant -Dallot.sim.seed=" + r.seed()
        + " -Dallot.sim.steps=" + config.steps() + " -Dallot.sim.strategy=" + config.strategy())
        .reduce("", (a, b) -> a + "\n\n" + b)).isEmpty();
  }

  /**
   * The SDK's own lease defaults (1 s / 100 ms / 200 ms since issue 22; the configurations above keep the earlier
   * 1.5 s / 300 ms / 500 ms their pinned seeds were found with). {@code -Dallot.sim.sdkLeaseSeeds=N} runs more.
   */
  @Test
  void theSdksLeaseDefaultsKeepEveryInvariant() {
    SimConfig config = SimConfig.builder().lease(io.allot.worker.Divider.DEFAULT_LEASE_TTL,
        io.allot.worker.Divider.DEFAULT_RENEW_EVERY, io.allot.worker.Divider.DEFAULT_FENCE_MARGIN).build();
    int seeds = Integer.getInteger("allot.sim.sdkLeaseSeeds", 20);
    long fences = 0;
    for (long seed = 1; seed <= seeds; seed++) {
      SimReport r = Simulation.run(seed, config);
      assertThat(r.ok()).as(r.details()).isTrue();
      fences += r.counts().getOrDefault("fence", 0L);
    }
    System.out.printf("sim at the SDK's lease defaults: %d seeds x %d steps, 0 failed, %d fences%n", seeds,
        config.steps(), fences);
  }

  @Test
  void otherStrategiesKeepEveryInvariantToo() {
    for (String strategy : List.of("balanced", "seed-ring")) {
      SimConfig config = SimConfig.builder().strategy(strategy).build();
      for (long seed = 1; seed <= 10; seed++) {
        SimReport r = Simulation.run(seed, config);
        assertThat(r.ok()).as(r.details()).isTrue();
      }
    }
  }

  @Test
  void aSeedReplaysExactly() {
    SimConfig config = SimConfig.defaults();
    List<String> hashes = new ArrayList<>();
    for (long seed : new long[] {3, 42, 1234}) {
      SimReport first = Simulation.run(seed, config);
      SimReport again = Simulation.run(seed, config);
      assertThat(again).isEqualTo(first); // every figure, the trace's hash and any failure
      hashes.add(first.traceHash());
    }
    assertThat(hashes).doesNotHaveDuplicates();
  }

  @Test
  void thePrintedTraceIsTheTraceThatIsHashed() throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    List<String> lines = new ArrayList<>();
    SimReport r = Simulation.run(7, SimConfig.defaults(), lines::add);
    for (String line : lines) {
      sha.update((line + "\n").getBytes(StandardCharsets.UTF_8));
    }
    assertThat(HexFormat.of().formatHex(sha.digest())).isEqualTo(r.traceHash());
    assertThat(lines).hasSize((int) r.traceLines());
    assertThat(lines).anyMatch(l -> l.contains(" fault "));
    assertThat(lines.get(lines.size() - 1)).contains("quiesced");
  }

  @Test
  void aRunExercisesWhatItClaimsTo() {
    Map<String, Long> totals = new TreeMap<>();
    for (long seed = 1; seed <= 20; seed++) {
      SimReport r = Simulation.run(seed, SimConfig.defaults());
      assertThat(r.ok()).as(r.details()).isTrue();
      assertThat(r.quiesceMillis()).isGreaterThanOrEqualTo(0);
      r.faults().forEach((k, n) -> totals.merge(k.toString(), (long) n, Long::sum));
      r.counts().forEach((k, n) -> totals.merge(k, n, Long::sum));
      totals.merge("starts", r.starts(), Long::sum);
    }
    for (Fault f : Fault.values()) {
      assertThat(totals).as("fault " + f).containsKey(f.toString());
    }
    // the ambiguous and racy paths of the SDK are reached, not only the happy one
    assertThat(totals).containsKeys("fence", "claims in doubt", "call timed out", "registration conflict",
        "claims in doubt checked", "release by the loop (give back, doubt)");
    assertThat(totals.get("starts")).isGreaterThan(20 * 30L);
  }

  static SimConfig configFromProperties() {
    Hole hole = Hole.valueOf(System.getProperty("allot.sim.hole", "NONE").toUpperCase(Locale.ROOT));
    return SimConfig.forHole(hole).toBuilder()
        .steps(Integer.getInteger("allot.sim.steps", CI_STEPS))
        .strategy(System.getProperty("allot.sim.strategy", "rendezvous"))
        .build();
  }
}
