package io.allot.cli;

import io.allot.core.assign.Assigner;
import io.allot.core.assign.Assigners;
import io.allot.core.assign.RendezvousAssigner;
import io.allot.core.assign.SeedLayout;
import io.allot.core.assign.Table;
import io.allot.core.model.Member;
import io.allot.core.model.Names;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code allot assign}: computes a table from files and prints it. */
@Command(
    name = "assign",
    description = {
      "Computes the assignment table of the members in --services and the units in --units, and prints it.",
      "One line per member in byte order, 'member:unit1,unit2' ('member:' when it has none).",
      "Input files are UTF-8, one name per line. A blank line is an error; a duplicate name is dropped",
      "with a warning (an error with --strict). Exit 2 on bad input."
    })
final class AssignCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = {"-strategy", "--strategy"},
      paramLabel = "NAME",
      defaultValue = Assigners.DEFAULT,
      description = "balanced (default), rendezvous-unbounded or seed-ring (rendezvous, retired, is still accepted).")
  String strategy;

  @Option(names = {"-services", "--services"}, required = true, paramLabel = "FILE", description = "Member ids, one per line.")
  Path services;

  @Option(names = {"-units", "--units"}, required = true, paramLabel = "FILE", description = "Work units, one per line.")
  Path units;

  @Option(
      names = {"-weights", "--weights"},
      paramLabel = "FILE",
      description = "Lines 'member affinity [capacity]' (whitespace-separated). Affinity 0 = no units. Members not listed have affinity 1.")
  Path weights;

  @Option(
      names = {"-previous", "--previous"},
      paramLabel = "FILE",
      description = "The table in force, in the output format (an earlier output can be fed back); 'balanced' "
          + "computes from it: the result is a function of this table and the inputs, and moves as little as possible.")
  Path previous;

  @Option(
      names = {"-load-bound", "--load-bound"},
      paramLabel = "EPSILON",
      description = "rendezvous (retired) only: no member gets more than ceil((1+EPSILON) x its fair share). Default ${DEFAULT-VALUE}.",
      defaultValue = "0.25")
  double loadBound;

  @Option(names = {"-strict", "--strict"}, description = "Treat duplicate names as errors.")
  boolean strict;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Assigner assigner;
    if (strategy.equals("rendezvous") && loadBound != RendezvousAssigner.DEFAULT_EPSILON) {
      assigner = RendezvousAssigner.bounded(loadBound);
    } else {
      assigner = Assigners.byName(strategy);
    }
    List<String> memberIds = InputFiles.names(services, "service", strict, err);
    List<String> unitNames = InputFiles.names(units, "unit", strict, err);
    for (String u : unitNames) {
      try {
        SeedLayout.checkUnit(u);
      } catch (IllegalArgumentException e) {
        throw new BadInputException(units + ": " + e.getMessage());
      }
    }
    for (String m : memberIds) {
      if (m.indexOf(',') >= 0) {
        throw new BadInputException(services + ": member " + Names.quote(m) + " contains ','");
      }
    }
    Map<String, int[]> weightOf = weights == null ? Map.of() : readWeights(new HashSet<>(memberIds));
    List<Member> members = new ArrayList<>();
    for (String id : memberIds) {
      int[] w = weightOf.get(id);
      members.add(w == null ? Member.of(id) : Member.of(id, w[0], w[1]));
    }
    Table prev = Table.EMPTY;
    if (previous != null) {
      try {
        prev = SeedLayout.parseText(InputFiles.lines(previous, "previous table"), new HashSet<>(memberIds));
      } catch (IllegalArgumentException e) {
        throw new BadInputException(previous + ": " + e.getMessage());
      }
    }
    Table t = assigner.assign(members, unitNames, prev);
    out.print(t.format());
    out.flush();
    if (!t.unassigned().isEmpty()) {
      err.println(
          "allot: warning: "
              + t.unassigned().size()
              + " unit(s) could not be placed (capacity exhausted): "
              + String.join(",", t.unassigned().subList(0, Math.min(20, t.unassigned().size())))
              + (t.unassigned().size() > 20 ? ",..." : ""));
    }
    return 0;
  }

  private Map<String, int[]> readWeights(java.util.Set<String> known) {
    Map<String, int[]> out = new HashMap<>();
    int lineNo = 0;
    for (String line : InputFiles.lines(weights, "weights")) {
      lineNo++;
      String s = line.strip();
      if (s.isEmpty() || s.startsWith("#")) {
        continue;
      }
      String[] parts = s.split("\\s+");
      if (parts.length < 2 || parts.length > 3) {
        throw new BadInputException(weights + " line " + lineNo + ": expected 'member affinity [capacity]' but got " + Names.quote(line));
      }
      if (!known.contains(parts[0])) {
        throw new BadInputException(weights + " line " + lineNo + ": member " + Names.quote(parts[0]) + " is not in " + services);
      }
      int w = parseCount(parts[1], "affinity", lineNo);
      int cap = parts.length == 3 ? parseCount(parts[2], "capacity", lineNo) : Member.UNLIMITED;
      if (out.put(parts[0], new int[] {w, cap}) != null) {
        throw new BadInputException(weights + " line " + lineNo + ": member " + Names.quote(parts[0]) + " is listed twice");
      }
    }
    return out;
  }

  private int parseCount(String s, String what, int lineNo) {
    try {
      int v = Integer.parseInt(s);
      if (v < 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new BadInputException(weights + " line " + lineNo + ": " + what + " must be a whole number >= 0, got " + Names.quote(s));
    }
  }
}
