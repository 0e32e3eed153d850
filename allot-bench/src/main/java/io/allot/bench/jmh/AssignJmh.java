package io.allot.bench.jmh;

import io.allot.bench.Scenario;
import io.allot.bench.Strategies;
import io.allot.core.assign.Assigner;
import io.allot.core.assign.Table;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH view of the same scenarios as {@code bench assign} ({@link io.allot.bench.AssignRunner}): a full assignment, and the
 * incremental update when the middle member leaves. Big cells are slow (naive-rendezvous at N =
 * 10^6, M = 1000 takes tens of seconds per call); narrow the grid with {@code -p}, e.g.
 *
 * <pre>
 * java -jar allot-bench/target/allot-bench.jar jmh AssignJmh -f 1 -wi 1 -i 1 -p n=1000 -p m=10
 * </pre>
 *
 * A strategy that throws fails its own parameter combinations only (JMH goes on unless {@code -foe
 * true}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class AssignJmh {

  @Param({"balanced", "rendezvous-unbounded", "seed-ring", "rendezvous", "modulo", "naive-rendezvous"})
  public String strategy;

  @Param({"1000", "100000", "1000000"})
  public int n;

  @Param({"3", "10", "100", "1000"})
  public int m;

  private Assigner assigner;
  private Scenario scenario;
  private Table previous;

  @Setup(Level.Trial)
  public void setUp() {
    assigner = Strategies.byName(strategy);
    scenario = Scenario.of(n, m);
    previous = assigner.assign(scenario.members(), scenario.units());
    previous.ownerIndex();
  }

  /** Full assignment, no previous table. */
  @Benchmark
  public Table assign() {
    return assigner.assign(scenario.members(), scenario.units());
  }

  /** The middle member leaves: {@code update} with the matching hint. */
  @Benchmark
  public Table leave() {
    return assigner.update(previous, scenario.membersAfterLeave(), scenario.units(), scenario.leaveChanges());
  }

  /** 1 % of the units are replaced: {@code update} with the matching hint. */
  @Benchmark
  public Table churn() {
    return assigner.update(previous, scenario.members(), scenario.unitsAfterChurn(), scenario.churnChanges());
  }
}
