package io.allot.cli.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.testkit.fleet.Fleet;
import io.allot.testkit.overlap.EventFile;
import io.allot.testkit.overlap.OverlapChecker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/** What the outage and partition tests wait for and check on a {@link Fleet}, from its event files. */
final class FleetChecks {
  private FleetChecks() {}

  /** Waits (up to 60 s) until exactly {@code units} run, each on one incarnation. */
  static void awaitEveryUnitRunningOnce(Fleet fleet, Collection<String> units) {
    Awaitility.await("every unit running once").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
        .until(() -> fleet.everyUnitRunningOnce(units));
  }

  /** Waits (up to 30 s) until {@code workers} incarnations run units (each has a lease to lose). */
  static void awaitEveryWorkerHasUnits(Fleet fleet, int workers) {
    Awaitility.await("every worker has units").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> fleet.running().values().stream().flatMap(List::stream).distinct().count() == workers);
  }

  /** Lease-lost lines per incarnation so far. */
  static Map<String, Integer> leaseLosses(Fleet fleet) {
    Map<String, Integer> out = new HashMap<>();
    for (String label : fleet.eventFiles().keySet()) {
      out.put(label, fleet.leaseLostTimes(label).size());
    }
    return out;
  }

  /** Waits (up to 10 s) until each of {@code labels} wrote a lease-lost line since {@code before} (it fenced). */
  static void awaitFenced(Fleet fleet, Map<String, Integer> before, Collection<String> labels) {
    Awaitility.await("fenced: " + labels).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> labels.stream()
            .allMatch(l -> fleet.leaseLostTimes(l).size() > before.getOrDefault(l, 0)));
  }

  /** The last lease-lost time (epoch millis) of an incarnation. */
  static long lastFence(Fleet fleet, String label) {
    List<Long> times = fleet.leaseLostTimes(label);
    assertThat(times).as("%s fenced itself", label).isNotEmpty();
    return times.get(times.size() - 1);
  }

  /** Unit to the earliest start at or after {@code since} (epoch millis) by any of {@code labels}. */
  static Map<String, Long> firstStartsSince(Fleet fleet, Collection<String> labels, long since) {
    Map<String, Long> out = new HashMap<>();
    for (String label : labels) {
      EventFile.startsSince(fleet.eventFiles().get(label), since).forEach((unit, t) -> out.merge(unit, t, Math::min));
    }
    return out;
  }

  /** The earliest start by anyone at or after {@code since}, or -1 if none. */
  static long firstStartSince(Fleet fleet, long since) {
    return firstStartsSince(fleet, fleet.eventFiles().keySet(), since).values().stream().mapToLong(Long::longValue)
        .min().orElse(-1);
  }

  /**
   * Runs the {@link OverlapChecker} over every incarnation's event file, prints the figures and asserts no overlap
   * and no problem.
   */
  static OverlapChecker.Report assertNoOverlaps(Fleet fleet, String name) {
    OverlapChecker.Report r = OverlapChecker.check(fleet.eventFiles(), fleet.killedAt(), System.currentTimeMillis());
    System.out.printf("%s: %d ownership intervals, %d overlaps, %d problems%n", name, r.intervals(),
        r.overlaps().size(), r.problems().size());
    assertThat(r.violations()).as("overlaps and event log problems").isEmpty();
    return r;
  }

  /** A test body that may throw anything. */
  interface Body {
    void run() throws Exception;
  }

  /**
   * Runs {@code body}; if it fails, the fleet's event logs and process output are kept ({@link #keepLogs}) before
   * the failure goes on.
   */
  static void keepingLogsOnFailure(Fleet fleet, String name, Body body) throws Exception {
    try {
      body.run();
    } catch (Exception | AssertionError e) {
      keepLogs(fleet, name);
      throw e;
    }
  }

  /** Copies the fleet's event logs and process output to {@code target/<name>} (a failed run's evidence). */
  static Path keepLogs(Fleet fleet, String name) {
    Path keep = Path.of("target", name.replaceAll("[^A-Za-z0-9.-]+", "-")).toAbsolutePath();
    try (Stream<Path> files = Files.list(fleet.dir())) {
      Files.createDirectories(keep);
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, keep.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the logs of " + fleet.dir() + " in " + keep, e);
    }
    System.out.printf("%s: event logs and process output kept in %s%n", name, keep);
    return keep;
  }

  /**
   * The end of chaos: resumes each worker still paused (a resume time set) and starts again each one still down (a
   * restart time set) with {@code restart}, given its index.
   */
  static void bringBack(Fleet.Worker[] w, long[] resumeAt, long[] restartAt, IntFunction<Fleet.Worker> restart) {
    for (int i = 0; i < w.length; i++) {
      if (resumeAt[i] != 0) {
        w[i].resume();
      }
      if (restartAt[i] != 0) {
        w[i] = restart.apply(i);
      }
    }
  }
}
