package io.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.allot.store.MemberMeta;
import io.allot.store.Tables;
import io.allot.store.memory.MemoryStore;
import io.allot.store.tasks.TaskRun;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code allot task create|update|delete|get|list} on a memory store shared by the in-process runs
 * ({@link SharedMemoryStores}; the store's own TaskSpecs on Redis and PostgreSQL are not here yet).
 */
class TaskCommandTest {
  private final String name = "t" + UUID.randomUUID().toString().substring(0, 8);
  private final String uri = "shared-memory:" + name;
  private final MemoryStore store = SharedMemoryStores.get(name);
  @TempDir Path dir;

  /** Pool p is served: a distributor leads it into the default table (the CLI's rule for a known pool). */
  @BeforeEach
  void serveP() {
    store.leadership().tryAcquire(Tables.leaseName("sys-matching-table", "p"), "distributor", Duration.ofMinutes(10))
        .orElseThrow();
  }

  private CliRun task(String... args) {
    return taskIn("p", args);
  }

  private CliRun taskIn(String pool, String... args) {
    String[] all = new String[args.length + 4];
    all[0] = "task";
    all[1] = args[0];
    all[2] = "-store";
    all[3] = uri;
    all[4] = "--pool=" + pool;
    System.arraycopy(args, 1, all, 5, args.length - 1);
    return CliRun.of(all);
  }

  private static void oneLineExit2(CliRun r, String what) {
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    // the memory store's warning aside (a real store has none), the error is one line
    assertThat(r.err().strip().lines().filter(l -> !l.startsWith("allot: WARN store"))).as(r.err())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING).startsWith("allot: ").contains(what)
        .endsWith("nothing changed");
    assertThat(r.out()).isEmpty();
  }

  /** REST refuses a pool its server does not serve; the CLI, on the store, refuses one no distributor serves. */
  @Test
  void aPoolNoDistributorServesIsOneLineNamingItExit2AndNothingIsWritten() {
    oneLineExit2(taskIn("ghostpool", "create", "x", "--args", "{}"), "unknown pool 'ghostpool'");
    oneLineExit2(taskIn("ghostpool", "list"), "unknown pool 'ghostpool'");
    assertThat(store.taskSpecs("ghostpool").version()).isZero();
  }

  /** A task in a pool fed by a units list would drop all its units: refused, naming the pool and the list. */
  @Test
  void aCreateInAPoolFedByAUnitsListIsOneLineNamingTheListExit2AndNothingIsWritten() {
    store.seedKeys().replaceList("sys-channels", List.of("u1", "u2", "u3"));
    oneLineExit2(task("create", "x", "--args", "{}"), "pool 'p' takes its units from the units list 'sys-channels'");
    assertThat(store.taskSpecs("p").version()).isZero();
    assertThat(store.seedKeys().list("sys-channels")).hasSize(3);
    assertThat(task("create", "x", "-workunits-namespace", "other-units").code()).as("another list, empty").isZero();
  }

  private static JsonNode json(CliRun r) throws Exception {
    return TaskJson.MAPPER.readTree(r.out());
  }

  @Test
  void createGetUpdateListDelete() throws Exception {
    CliRun r = task("create", "crawl-1", "--args", "{\"site\": \"a.example\", \"depth\": 2}", "--cost", "3");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("task 'crawl-1' created in pool 'p'");
    assertThat(json(r).get("args").toString()).isEqualTo("{\"depth\":2,\"site\":\"a.example\"}");
    assertThat(json(r).get("status").asText()).isEqualTo("Pending");

    r = task("create", "crawl-1", "--args", "{\"depth\":2,\"site\":\"a.example\"}", "--cost", "3");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("already exists with these arguments and cost; nothing changed");

    r = task("create", "crawl-1", "--args", "{}", "--cost", "3");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("name: task 'crawl-1' exists in pool 'p' with other args");

    Path f = dir.resolve("args.json");
    Files.writeString(f, "{\"site\":\"b.example\"}");
    r = task("update", "crawl-1", "--args-file", f.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(json(r).get("revision").asLong()).isEqualTo(2);
    assertThat(json(r).get("cost").asInt()).isEqualTo(3);
    assertThat(store.taskSpecs("p").get("crawl-1").orElseThrow().args()).isEqualTo("{\"site\":\"b.example\"}");

    r = task("get", "crawl-1");
    assertThat(json(r).get("args").get("site").asText()).isEqualTo("b.example");

    task("create", "crawl-2");
    r = task("list");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).containsPattern("crawl-1\\s+Pending\\s+3\\s+2\\s+-\\s+no live member in pool")
        .contains("2 tasks");
    r = task("list", "--status", "Pending", "--json");
    assertThat(json(r).get("tasks").findValuesAsText("name")).containsExactly("crawl-1", "crawl-2");

    r = task("delete", "crawl-2");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(json(r).get("status").asText()).isEqualTo("Deleted");
    assertThat(json(task("list", "--status=deleted", "--json")).get("tasks").findValuesAsText("name"))
        .containsExactly("crawl-2");
  }

  @Test
  void statusesFollowTheStore() throws Exception {
    task("create", "obs", "--args", "{\"ticker\":\"X\"}");
    long session = store.membership("p").register("127.0.0.1:1", MemberMeta.of(1, 4), Duration.ofSeconds(30));
    assertThat(json(task("get", "obs")).get("status").asText()).isEqualTo("Created");
    long token = store.ownership("p").claim("obs", "127.0.0.1:1", session).orElseThrow();
    store.taskSpecs("p").started("obs", new TaskRun("127.0.0.1:1", token, 1, 0));
    JsonNode t = json(task("get", "obs"));
    assertThat(t.get("status").asText()).isEqualTo("Processing");
    assertThat(t.get("owner").asText()).isEqualTo("127.0.0.1:1");
    assertThat(t.get("token").asLong()).isEqualTo(token);
    assertThat(json(task("delete", "obs")).get("status").asText()).isEqualTo("OnDeleting");
    store.ownership("p").release("obs", "127.0.0.1:1", token);
    assertThat(json(task("get", "obs")).get("status").asText()).isEqualTo("Deleted");
  }

  @Test
  void badInputIsNamedExit2AndChangesNothing() {
    task("create", "keep", "--args", "{\"v\":1}");
    long version = store.taskSpecs("p").version();
    String[][] cases = {
      {"create", "bad name"}, {"name: task name 'bad name'"},
      {"create", "x", "--args", "[1]"}, {"args: must be a JSON object but was an array"},
      {"create", "x", "--args", "{\"a\":"}, {"args: not valid JSON"},
      {"create", "x", "--cost", "0"}, {"cost: task cost must be 1 to 1000000 but was 0"},
      {"create", "x", "--args", "{\"a\":\"" + "x".repeat(70_000) + "\"}"}, {"args: 70008 bytes"},
      {"create", "x", "--args", "{}", "--args-file", "f"}, {"--args and --args-file"},
      {"create", "x", "--args-file", "/no/such/file"}, {"--args-file /no/such/file: cannot read"},
      {"update", "keep"}, {"--args or --args-file: the new arguments are required"},
      {"update", "keep", "--args", "1"}, {"args: must be a JSON object but was a number"},
      {"list", "--status", "Sleeping"}, {"status: status 'Sleeping' is not one of"},
    };
    for (int i = 0; i < cases.length; i += 2) {
      CliRun r = task(cases[i]);
      String what = String.join(" ", cases[i]);
      assertThat(r.code()).as(what + ": " + r.err()).isEqualTo(2);
      assertThat(r.err()).as(what).startsWith("allot: ").contains(cases[i + 1][0]);
    }
    CliRun missing = task("get", "missing");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("name: no task 'missing' in pool 'p'");
    assertThat(task("delete", "missing").code()).isEqualTo(1);
    assertThat(task("update", "missing", "--args", "{}").code()).isEqualTo(1);
    assertThat(CliRun.of("task", "get", "x", "-store", uri).err()).contains("--pool");
    assertThat(CliRun.of("task").code()).isEqualTo(2);
    CliRun memory = CliRun.of("task", "create", "x", "-store", "memory:", "--pool", "p");
    assertThat(memory.code()).isEqualTo(2);
    assertThat(memory.err()).contains("-store memory: lives in one process only");
    assertThat(CliRun.of("task", "create", "--help").out()).contains("--args-file");
    assertThat(store.taskSpecs("p").version()).isEqualTo(version);
    assertThat(store.taskSpecs("p").get("x")).isEmpty();
  }

  /** Every kind of refusal has its exit code: 2 for input to change (nothing was applied), 1 otherwise. */
  @ParameterizedTest
  @EnumSource(ErrorKind.class)
  void everyErrorKindExitsWithItsCode(ErrorKind kind) {
    boolean badInput = kind == ErrorKind.BAD_INPUT || kind == ErrorKind.TOO_LARGE;
    assertThat(TaskCommand.exitCode(kind)).as("%s", kind).isEqualTo(badInput ? 2 : 1);
  }
}
