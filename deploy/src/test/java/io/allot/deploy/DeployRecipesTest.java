package io.allot.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.cli.Main;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The recipes cannot be built here (no registry for images, no cluster), so this checks what can be checked: the
 * image's command and every container's command are real {@code allot} commands, every flag they pass is in that
 * command's {@code --help}, every {@code $(VAR)} is defined, probes point at paths and ports the processes serve, the
 * Secret, PodDisruptionBudgets, replicas and grace periods are there and consistent.
 */
class DeployRecipesTest {
  static final Path DEPLOY = Path.of(".");
  static final Path ROOT = Path.of("..");
  /** The paths the server's ops HTTP port serves (checked against its source below). */
  static final List<String> SERVED = List.of("/healthz", "/metrics", "/version");

  @Test
  void theDockerfileBuildsTheCliJarAndRunsARealCommandAsANonRootUserWithAHealthCheck() throws IOException {
    List<String> lines = Files.readAllLines(DEPLOY.resolve("Dockerfile"));
    assertThat(lines.stream().filter(l -> l.startsWith("FROM ")).count()).as("multi-stage").isEqualTo(2);
    String text = String.join("\n", lines);
    assertThat(text).contains("-pl allot-cli -am package");
    // the runnable jar is the shade plugin's outputFile (the module's own jar stays the plain one)
    Matcher runnable = Pattern.compile("<outputFile>\\$\\{project.build.directory}/(\\w+)\\.jar</outputFile>")
        .matcher(Files.readString(ROOT.resolve("allot-cli/pom.xml")));
    assertThat(runnable.find()).as("allot-cli's pom names the runnable jar").isTrue();
    assertThat(text).contains("COPY --from=build /src/allot-cli/target/" + runnable.group(1) + ".jar /opt/allot/allot.jar");
    assertThat(line(lines, "ENTRYPOINT ")).contains("\"-jar\", \"/opt/allot/allot.jar\"");
    String cmd = line(lines, "CMD ").replaceAll("CMD \\[\"(\\w+)\"]", "$1");
    assertThat(help(cmd)).as("CMD names a command").contains("Usage: allot " + cmd);
    String user = line(lines, "USER ").substring(5).trim();
    assertThat(user).isNotIn("0", "root");
    assertThat(text).containsPattern("useradd [^\\n]*--uid " + user);
    String health = text.substring(text.indexOf("HEALTHCHECK"));
    assertThat(health).contains("/dev/tcp/127.0.0.1/" + promPortDefault()).contains("GET /healthz ");
    assertServed("/healthz");
  }

  @Test
  void everyContainerRunsARealCommandWithRealFlagsAndDefinedVariables() throws IOException {
    Map<String, Map<String, Object>> deployments = byKind("Deployment");
    assertThat(deployments).containsOnlyKeys("allot-distributor", "allot-worker");
    for (Map<String, Object> d : deployments.values()) {
      for (Map<String, Object> c : containers(d)) {
        List<String> args = strings(c.get("args"));
        String help = help(args.get(0));
        assertThat(help).as("%s names a command", args.get(0)).contains("Usage: allot " + args.get(0));
        for (String a : args.subList(1, args.size())) {
          if (a.startsWith("-")) {
            assertThat(help).as("flag %s of allot %s", a, args.get(0))
                .containsPattern("(?<![\\w-])" + Pattern.quote(a) + "(?![\\w-])");
          }
        }
        List<String> env = new ArrayList<>();
        for (Map<String, Object> e : maps(c.get("env"))) {
          env.add((String) e.get("name"));
          Map<String, Object> secret = map(map(e.get("valueFrom")).get("secretKeyRef"));
          if (!secret.isEmpty()) {
            Map<String, Object> s = byKind("Secret").get((String) secret.get("name"));
            assertThat(s).as("Secret %s", secret.get("name")).isNotNull();
            assertThat(map(s.get("stringData"))).containsKey((String) secret.get("key"));
          }
        }
        Matcher var = Pattern.compile("\\$\\((\\w+)\\)").matcher(String.join(" ", args));
        while (var.find()) {
          assertThat(env).as("$(%s) is defined", var.group(1)).contains(var.group(1));
        }
      }
    }
  }

  @Test
  void theDistributorHasTwoToThreeReplicasAPdbAndProbesOnPathsTheServerServes() throws IOException {
    Map<String, Object> d = byKind("Deployment").get("allot-distributor");
    assertThat((Integer) map(d.get("spec")).get("replicas")).isBetween(2, 3);
    Map<String, Object> c = containers(d).get(0);
    List<String> args = strings(c.get("args"));
    int port = args.contains("-prom-port") ? Integer.parseInt(args.get(args.indexOf("-prom-port") + 1))
        : promPortDefault();
    for (String probe : List.of("readinessProbe", "livenessProbe")) {
      Map<String, Object> get = map(map(c.get(probe)).get("httpGet"));
      assertThat(SERVED).contains((String) get.get("path"));
      assertServed((String) get.get("path"));
      assertThat(get.get("port")).isEqualTo(port);
    }
    assertThat(args.get(args.indexOf("-store") + 1)).isEqualTo("$(ALLOT_STORE)");
    assertPdbSelects(d);
  }

  @Test
  void workersAdvertiseThePodIpProbeTheirPingPortAndOutliveTheirDrain() throws IOException {
    Map<String, Object> d = byKind("Deployment").get("allot-worker");
    Map<String, Object> c = containers(d).get(0);
    List<String> args = strings(c.get("args"));
    assertThat(args.get(args.indexOf("--host") + 1)).isEqualTo("$(POD_IP)");
    assertThat(maps(c.get("env"))).anySatisfy(e -> {
      assertThat(e.get("name")).isEqualTo("POD_IP");
      assertThat(map(map(e.get("valueFrom")).get("fieldRef")).get("fieldPath")).isEqualTo("status.podIP");
    });
    int port = Integer.parseInt(args.get(args.indexOf("--port") + 1));
    for (String probe : List.of("readinessProbe", "livenessProbe")) {
      assertThat(map(map(c.get(probe)).get("grpc")).get("port")).as(probe).isEqualTo(port);
    }
    // SIGTERM: flushAndCancel(drain) in WorkerCommand, then stops confirmed within the shutdown grace (5 s) and the
    // lease (1 s) plus the clock margin
    Matcher drain = Pattern.compile("flushAndCancel\\(Duration\\.ofSeconds\\((\\d+)\\)\\)")
        .matcher(Files.readString(ROOT.resolve("allot-cli/src/main/java/io/allot/cli/WorkerCommand.java")));
    assertThat(drain.find()).isTrue();
    int grace = (Integer) map(map(map(d.get("spec")).get("template")).get("spec")).get("terminationGracePeriodSeconds");
    assertThat(grace).isGreaterThan(Integer.parseInt(drain.group(1)) + 5 + 2);
    assertPdbSelects(d);
  }

  @Test
  void kustomizationListsEveryManifestAndEveryPodRunsAsNonRoot() throws IOException {
    Map<String, Object> k = new Yaml().load(Files.readString(DEPLOY.resolve("k8s/kustomization.yaml")));
    List<String> resources = strings(k.get("resources"));
    try (var files = Files.list(DEPLOY.resolve("k8s"))) {
      assertThat(files.map(p -> p.getFileName().toString()).filter(n -> !n.equals("kustomization.yaml")))
          .containsExactlyInAnyOrderElementsOf(resources);
    }
    for (Map<String, Object> d : byKind("Deployment").values()) {
      Map<String, Object> pod = map(map(map(d.get("spec")).get("template")).get("spec"));
      assertThat(map(pod.get("securityContext")).get("runAsNonRoot")).isEqualTo(true);
      assertThat(strings(List.of(containers(d).get(0).get("image"))).get(0))
          .startsWith((String) maps(k.get("images")).get(0).get("name") + ":");
    }
  }

  // ------------------------------------------------------------------ helpers

  /** {@code allot <command> --help}, run in-process; fails unless it exits 0. */
  static String help(String command) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new PrintWriter(out), new PrintWriter(err), command, "--help");
    assertThat(code).as("allot %s --help: %s", command, err).isZero();
    return out.toString();
  }

  static int promPortDefault() {
    Matcher m = Pattern.compile("-prom-port=PORT\\s+(?:[^\\n]*\\n)*?[^\\n]*Default[: ]+(\\d+)").matcher(help("server"));
    assertThat(m.find()).as("the server's help gives -prom-port's default").isTrue();
    return Integer.parseInt(m.group(1));
  }

  /** The server's ops HTTP server registers {@code path}. */
  static void assertServed(String path) throws IOException {
    assertThat(Files.readString(ROOT.resolve("allot-server/src/main/java/io/allot/server/http/OpsHttpServer.java")))
        .contains("case \"" + path + "\"");
  }

  void assertPdbSelects(Map<String, Object> deployment) throws IOException {
    Map<String, Object> labels = map(map(map(map(deployment.get("spec")).get("template")).get("metadata")).get("labels"));
    assertThat(byKind("PodDisruptionBudget").values()).as("a PDB for %s", name(deployment)).anySatisfy(p ->
        assertThat(labels).containsAllEntriesOf(map(map(map(p.get("spec")).get("selector")).get("matchLabels"))));
  }

  /** Every document of {@code kind} in k8s/, by name. */
  static Map<String, Map<String, Object>> byKind(String kind) throws IOException {
    Map<String, Map<String, Object>> out = new HashMap<>();
    try (var files = Files.list(DEPLOY.resolve("k8s"))) {
      for (Path f : files.filter(p -> !p.endsWith("kustomization.yaml")).toList()) {
        for (Object doc : new Yaml().loadAll(Files.readString(f))) {
          Map<String, Object> m = map(doc);
          if (kind.equals(m.get("kind"))) {
            out.put(name(m), m);
          }
        }
      }
    }
    return out;
  }

  static String name(Map<String, Object> doc) {
    return (String) map(doc.get("metadata")).get("name");
  }

  static List<Map<String, Object>> containers(Map<String, Object> deployment) {
    return maps(map(map(map(deployment.get("spec")).get("template")).get("spec")).get("containers"));
  }

  static String line(List<String> lines, String prefix) {
    return lines.stream().filter(l -> l.startsWith(prefix)).reduce((a, b) -> b).orElseThrow();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return o == null ? Map.of() : (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> maps(Object o) {
    return o == null ? List.of() : (List<Map<String, Object>>) o;
  }

  static List<String> strings(Object o) {
    return ((List<?>) o).stream().map(String::valueOf).toList();
  }
}
