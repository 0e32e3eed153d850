package io.allot.server.grpc;

import static io.allot.server.grpc.TasksGrpcServiceTest.refused;
import static org.assertj.core.api.Assertions.assertThat;

import io.allot.server.auth.Authenticator;
import io.allot.server.auth.GrpcAuth;
import io.allot.server.auth.Role;
import io.allot.store.memory.MemoryStore;
import io.allot.tasks.service.TaskService;
import io.allot.tasks.v1.CreateTaskRequest;
import io.allot.tasks.v1.ListPoolsRequest;
import io.allot.tasks.v1.ListTasksRequest;
import io.allot.tasks.v1.TaskRef;
import io.allot.tasks.v1.TasksGrpc;
import io.allot.tasks.v1.UpdateTaskRequest;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The gRPC task API's writes refused without a write token, its reads closed by a read token, over real Netty. */
class TasksGrpcAuthTest {
  @Test
  void everyWriteNeedsAWriteTokenAndReadsAToken() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Authenticator auth = Authenticator.builder().token("ci", Role.WRITE, "w").token("grafana", Role.READ, "r")
        .meterRegistry(registry).build();
    MemoryStore store = new MemoryStore();
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(TasksGrpcService.definition(TaskService.forPools(store, "sys-matching-table", List.of("p")), auth))
        .build().start();
    ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      TasksGrpc.TasksBlockingStub anon = TasksGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS);
      TasksGrpc.TasksBlockingStub reader = anon.withCallCredentials(GrpcAuth.bearer("r"));
      TasksGrpc.TasksBlockingStub wrong = anon.withCallCredentials(GrpcAuth.bearer("x"));
      TasksGrpc.TasksBlockingStub writer = anon.withCallCredentials(GrpcAuth.bearer("w"));
      CreateTaskRequest create = CreateTaskRequest.newBuilder().setPool("p").setName("a").build();
      UpdateTaskRequest update = UpdateTaskRequest.newBuilder().setPool("p").setName("a")
          .setArgsJson("{\"x\":1}").build();
      TaskRef ref = TaskRef.newBuilder().setPool("p").setName("a").build();
      for (TasksGrpc.TasksBlockingStub s : List.of(anon, wrong)) {
        refused(Status.Code.UNAUTHENTICATED, "authorization: ", () -> s.createTask(create));
        refused(Status.Code.UNAUTHENTICATED, "authorization: ", () -> s.updateTask(update));
        refused(Status.Code.UNAUTHENTICATED, "authorization: ", () -> s.deleteTask(ref));
        refused(Status.Code.UNAUTHENTICATED, "authorization: ",
            () -> s.listPools(ListPoolsRequest.getDefaultInstance()));
      }
      refused(Status.Code.UNAUTHENTICATED, "reads need the metadata 'authorization: Bearer <token>'",
          () -> anon.getTask(ref));
      refused(Status.Code.PERMISSION_DENIED, "has role read; writes need role write", () -> reader.createTask(create));
      refused(Status.Code.PERMISSION_DENIED, "has role read", () -> reader.updateTask(update));
      refused(Status.Code.PERMISSION_DENIED, "has role read", () -> reader.deleteTask(ref));
      assertThat(store.taskSpecs("p").get("a")).as("nothing written").isEmpty();

      assertThat(writer.createTask(create).getCreated()).isTrue();
      assertThat(reader.listTasks(ListTasksRequest.newBuilder().setPool("p").build()).getTasksCount()).isEqualTo(1);
      assertThat(writer.updateTask(update).getRevision()).isEqualTo(2);
      assertThat(writer.deleteTask(ref).getName()).isEqualTo("a");
      assertThat(registry.get(Authenticator.REFUSED_METRIC).tag("channel", "grpc").tag("reason", "role").counter()
          .count()).isEqualTo(3);
    } finally {
      ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      store.close();
    }
  }

  @Test
  void withoutTokensAWriteFromOffLoopbackIsRefusedUnlessOpened() throws Exception {
    MemoryStore store = new MemoryStore();
    TaskService tasks = TaskService.forPools(store, "sys-matching-table", List.of("p"));
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(TasksGrpcService.definition(tasks, Authenticator.builder().loopback(a -> false).build()))
        .build().start();
    ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      TasksGrpc.TasksBlockingStub anon = TasksGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS);
      refused(Status.Code.PERMISSION_DENIED, "accepts writes only from loopback",
          () -> anon.createTask(CreateTaskRequest.newBuilder().setPool("p").setName("a").build()));
      assertThat(anon.listPools(ListPoolsRequest.getDefaultInstance()).getPoolsCount()).isEqualTo(1);
    } finally {
      ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      store.close();
    }
  }
}
