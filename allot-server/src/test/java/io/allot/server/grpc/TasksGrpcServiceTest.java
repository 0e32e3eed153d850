package io.allot.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.allot.store.MemberMeta;
import io.allot.store.memory.MemoryStore;
import io.allot.store.tasks.TaskRun;
import io.allot.tasks.service.TaskService;
import io.allot.tasks.service.TaskServiceException;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import io.allot.tasks.v1.CreateTaskRequest;
import io.allot.tasks.v1.CreateTaskResponse;
import io.allot.tasks.v1.ListMembersRequest;
import io.allot.tasks.v1.ListPoolsRequest;
import io.allot.tasks.v1.ListTasksRequest;
import io.allot.tasks.v1.Task;
import io.allot.tasks.v1.TaskRef;
import io.allot.tasks.v1.TasksGrpc;
import io.allot.tasks.v1.UpdateTaskRequest;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.MetadataUtils;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code allot.tasks.v1.Tasks} over a real Netty server on loopback, with a memory store. */
class TasksGrpcServiceTest {
  static final String TOKEN = "grpc-secret";
  static MemoryStore store;
  static Server server;
  static ManagedChannel channel;
  static TasksGrpc.TasksBlockingStub anon;
  static TasksGrpc.TasksBlockingStub authed;

  @BeforeAll
  static void start() throws Exception {
    store = new MemoryStore();
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(TasksGrpcService.definition(TaskService.forPools(store, "sys-matching-table", List.of("p")), TOKEN))
        .build().start();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
  }

  /** Stubs per test: a deadline is an instant, so stubs made once in @BeforeAll expired in the class's later tests. */
  @BeforeEach
  void stubs() {
    anon = TasksGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    authed = anon.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(bearer(TOKEN)));
  }

  static Metadata bearer(String token) {
    Metadata m = new Metadata();
    m.put(TasksGrpcService.AUTHORIZATION, "Bearer " + token);
    return m;
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    store.close();
  }

  static void refused(Status.Code code, String fragment, ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).as(e.getMessage()).isEqualTo(code);
      assertThat(e.getStatus().getDescription()).contains(fragment);
    });
  }

  @Test
  void createGetListUpdateDelete() {
    CreateTaskResponse c = authed.createTask(CreateTaskRequest.newBuilder().setPool("p").setName("g1")
        .setArgsJson("{\"z\": 1, \"a\": 2}").setCost(2).build());
    assertThat(c.getCreated()).isTrue();
    assertThat(c.getTask().getArgsJson()).isEqualTo("{\"a\":2,\"z\":1}");
    assertThat(c.getTask().getStatus()).isEqualTo("Pending");
    assertThat(c.getTask().getReason()).isEqualTo("no live member in pool");
    assertThat(authed.createTask(CreateTaskRequest.newBuilder().setPool("p").setName("g1")
        .setArgsJson("{\"a\":2,\"z\":1}").setCost(2).build()).getCreated()).isFalse();
    refused(Status.Code.ALREADY_EXISTS, "other args", () -> authed.createTask(CreateTaskRequest.newBuilder()
        .setPool("p").setName("g1").setArgsJson("{}").setCost(2).build()));

    assertThat(anon.getTask(TaskRef.newBuilder().setPool("p").setName("g1").build()).getCost()).isEqualTo(2);
    assertThat(anon.listTasks(ListTasksRequest.newBuilder().setPool("p").setStatus("Pending").build()).getTasksList())
        .extracting(Task::getName).contains("g1");
    Task u = authed.updateTask(UpdateTaskRequest.newBuilder().setPool("p").setName("g1").setArgsJson("{\"a\":3}").build());
    assertThat(u.getRevision()).isEqualTo(2);
    assertThat(u.getCost()).isEqualTo(2);
    Task d = authed.deleteTask(TaskRef.newBuilder().setPool("p").setName("g1").build());
    assertThat(d.getStatus()).isEqualTo("Deleted");
    assertThat(d.getDeletedAtMillis()).isPositive();
  }

  @Test
  void writesNeedTheTokenReadsAreOpen() {
    CreateTaskRequest req = CreateTaskRequest.newBuilder().setPool("p").setName("auth").build();
    refused(Status.Code.UNAUTHENTICATED, "authorization: writes need", () -> anon.createTask(req));
    TasksGrpc.TasksBlockingStub wrong = anon.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(bearer("nope")));
    refused(Status.Code.UNAUTHENTICATED, "wrong bearer token", () -> wrong.createTask(req));
    refused(Status.Code.UNAUTHENTICATED, "wrong bearer token",
        () -> wrong.deleteTask(TaskRef.newBuilder().setPool("p").setName("auth").build()));
    refused(Status.Code.NOT_FOUND, "no task 'auth'", () -> anon.getTask(TaskRef.newBuilder().setPool("p").setName("auth").build()));
    assertThat(anon.listPools(ListPoolsRequest.getDefaultInstance()).getPoolsList()).hasSize(1);
  }

  @Test
  void errorsNameTheFieldAndChangeNothing() {
    long version = store.taskSpecs("p").version();
    refused(Status.Code.NOT_FOUND, "pool: unknown pool 'x'",
        () -> authed.createTask(CreateTaskRequest.newBuilder().setPool("x").setName("t").build()));
    refused(Status.Code.INVALID_ARGUMENT, "name: task name",
        () -> authed.createTask(CreateTaskRequest.newBuilder().setPool("p").setName("a b").build()));
    refused(Status.Code.INVALID_ARGUMENT, "args: must be a JSON object but was an array",
        () -> authed.createTask(CreateTaskRequest.newBuilder().setPool("p").setName("t").setArgsJson("[]").build()));
    refused(Status.Code.INVALID_ARGUMENT, "args: not valid JSON",
        () -> authed.createTask(CreateTaskRequest.newBuilder().setPool("p").setName("t").setArgsJson("{").build()));
    refused(Status.Code.INVALID_ARGUMENT, "args: 70008 bytes",
        () -> authed.createTask(CreateTaskRequest.newBuilder().setPool("p").setName("t")
            .setArgsJson("{\"a\":\"" + "x".repeat(70_000) + "\"}").build()));
    refused(Status.Code.INVALID_ARGUMENT, "cost:",
        () -> authed.createTask(CreateTaskRequest.newBuilder().setPool("p").setName("t").setCost(-1).build()));
    refused(Status.Code.INVALID_ARGUMENT, "status:",
        () -> anon.listTasks(ListTasksRequest.newBuilder().setPool("p").setStatus("Sleeping").build()));
    refused(Status.Code.INVALID_ARGUMENT, "args: must be a JSON object but was missing",
        () -> authed.updateTask(UpdateTaskRequest.newBuilder().setPool("p").setName("t").build()));
    assertThat(store.taskSpecs("p").version()).isEqualTo(version);
  }

  @Test
  void processingAndMembers() {
    authed.createTask(CreateTaskRequest.newBuilder().setPool("p").setName("run").build());
    long session = store.membership("p").register("127.0.0.1:7", MemberMeta.of(2, 6), Duration.ofSeconds(30));
    long token = store.ownership("p").claim("run", "127.0.0.1:7", session).orElseThrow();
    store.taskSpecs("p").started("run", new TaskRun("127.0.0.1:7", token, 1, 0));
    Task t = anon.getTask(TaskRef.newBuilder().setPool("p").setName("run").build());
    assertThat(t.getStatus()).isEqualTo("Processing");
    assertThat(t.getOwner()).isEqualTo("127.0.0.1:7");
    assertThat(t.getToken()).isEqualTo(token);
    var members = anon.listMembers(ListMembersRequest.newBuilder().setPool("p").build()).getMembersList();
    assertThat(members).hasSize(1);
    assertThat(members.get(0).getAffinity()).isEqualTo(2);
    assertThat(members.get(0).getCapacity()).isEqualTo(6);
    assertThat(members.get(0).getUp()).isTrue();
    assertThat(authed.deleteTask(TaskRef.newBuilder().setPool("p").setName("run").build()).getStatus())
        .isEqualTo("OnDeleting");
  }

  /** Every kind of refusal has its gRPC status code (a kind added without one fails here). */
  @ParameterizedTest
  @EnumSource(ErrorKind.class)
  void everyErrorKindAnswersWithItsGrpcStatus(ErrorKind kind) {
    Map<ErrorKind, Status.Code> expected = Map.of(ErrorKind.BAD_INPUT, Status.Code.INVALID_ARGUMENT,
        ErrorKind.UNAUTHENTICATED, Status.Code.UNAUTHENTICATED, ErrorKind.NOT_FOUND, Status.Code.NOT_FOUND,
        ErrorKind.CONFLICT, Status.Code.ALREADY_EXISTS, ErrorKind.TOO_LARGE, Status.Code.INVALID_ARGUMENT,
        ErrorKind.UNAVAILABLE, Status.Code.UNAVAILABLE);
    assertThat(expected).containsKey(kind);
    assertThat(TasksGrpcService.status(kind).getCode()).isEqualTo(expected.get(kind));
  }

  /**
   * An unreachable store or an internal error answers without connection details (the REST API's rule, issue 18
   * item 6): the store URI with its user stays in the server's log.
   */
  @Test
  void refusalsNameNoStoreUriOrUser() {
    String uri = "postgresql://secret-user@db.internal:5432/prod";
    Status unavailable = TasksGrpcService.refusal(
        new TaskServiceException(ErrorKind.UNAVAILABLE, "store unavailable: " + uri + " (schema allot)"));
    assertThat(unavailable.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(unavailable.getDescription()).startsWith("store: unavailable").doesNotContain("secret-user")
        .doesNotContain("db.internal");
    Status internal = TasksGrpcService.refusal(new IllegalStateException("pool closed: " + uri));
    assertThat(internal.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(internal.getDescription()).doesNotContain("secret-user").doesNotContain("db.internal");
    Status bad = TasksGrpcService.refusal(
        new TaskServiceException(ErrorKind.BAD_INPUT, "name: must not be empty"));
    assertThat(bad.getDescription()).isEqualTo("name: must not be empty"); // refusals of input still name it
  }
}
