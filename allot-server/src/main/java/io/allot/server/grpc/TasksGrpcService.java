package io.allot.server.grpc;

import io.allot.server.auth.Authenticator;
import io.allot.server.auth.GrpcAuth;
import io.allot.server.auth.Role;
import io.allot.tasks.service.MemberView;
import io.allot.tasks.service.PoolInfo;
import io.allot.tasks.service.TaskService;
import io.allot.tasks.service.TaskServiceException;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import io.allot.tasks.service.TaskView;
import io.allot.tasks.v1.CreateTaskRequest;
import io.allot.tasks.v1.CreateTaskResponse;
import io.allot.tasks.v1.ListMembersRequest;
import io.allot.tasks.v1.ListMembersResponse;
import io.allot.tasks.v1.ListPoolsRequest;
import io.allot.tasks.v1.ListPoolsResponse;
import io.allot.tasks.v1.ListTasksRequest;
import io.allot.tasks.v1.ListTasksResponse;
import io.allot.tasks.v1.Member;
import io.allot.tasks.v1.Pool;
import io.allot.tasks.v1.Task;
import io.allot.tasks.v1.TaskRef;
import io.allot.tasks.v1.TasksGrpc;
import io.allot.tasks.v1.UpdateTaskRequest;
import io.grpc.BindableService;
import io.grpc.Metadata;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC service {@code allot.tasks.v1.Tasks} ({@code src/main/proto/allot/tasks/v1/tasks.proto}): the task
 * management API's operations over {@link TaskService}, with the REST API's errors mapped to gRPC statuses (400 and
 * 413 to INVALID_ARGUMENT, 404 NOT_FOUND, 409 ALREADY_EXISTS, 401 UNAUTHENTICATED, 503 UNAVAILABLE) whose
 * descriptions name the field. Add {@link #definition(TaskService, Authenticator)} to a server: it checks the
 * bearer token of every call.
 */
public final class TasksGrpcService extends TasksGrpc.TasksImplBase {
  private static final Logger log = LoggerFactory.getLogger(TasksGrpcService.class);

  /** The metadata key of the token: {@code authorization: Bearer <token>}. */
  public static final Metadata.Key<String> AUTHORIZATION = GrpcAuth.AUTHORIZATION;

  private static final Set<String> WRITES = Set.of(
      TasksGrpc.getCreateTaskMethod().getFullMethodName(),
      TasksGrpc.getUpdateTaskMethod().getFullMethodName(),
      TasksGrpc.getDeleteTaskMethod().getFullMethodName());

  private final TaskService service;

  public TasksGrpcService(TaskService service) {
    this.service = Objects.requireNonNull(service, "service");
  }

  /**
   * The service with its token check: with a non-empty {@code apiToken}, the writes need {@code authorization:
   * Bearer <apiToken>} (UNAUTHENTICATED otherwise); reads are open. Without one, no check (serve it on loopback).
   */
  public static ServerServiceDefinition definition(TaskService service, String apiToken) {
    if (apiToken == null || apiToken.isEmpty()) {
      return new TasksGrpcService(service).bindService();
    }
    return definition(service, Authenticator.builder().token("api-token", Role.WRITE, apiToken).build());
  }

  /**
   * The service checked by {@code auth} ({@link GrpcAuth}): create, update and delete need the role {@code write},
   * the other methods {@code read}; refused calls end UNAUTHENTICATED (no known token) or PERMISSION_DENIED (a token
   * of the wrong role; a write from off loopback when no token is configured).
   */
  public static ServerServiceDefinition definition(TaskService service, Authenticator auth) {
    BindableService s = new TasksGrpcService(service);
    return ServerInterceptors.intercept(s, GrpcAuth.interceptor(auth, Authenticator.Channel.GRPC,
        m -> WRITES.contains(m) ? Role.WRITE : Role.READ));
  }

  @Override
  public void createTask(CreateTaskRequest req, StreamObserver<CreateTaskResponse> out) {
    run(out, () -> {
      TaskService.Written w = service.create(req.getPool(), req.getName(),
          req.getArgsJson().isEmpty() ? "{}" : req.getArgsJson(), req.getCost() == 0 ? 1 : req.getCost());
      return CreateTaskResponse.newBuilder().setTask(task(w.task())).setCreated(w.created()).build();
    });
  }

  @Override
  public void updateTask(UpdateTaskRequest req, StreamObserver<Task> out) {
    run(out, () -> task(service.update(req.getPool(), req.getName(), req.getArgsJson(),
        req.getCost() == 0 ? null : req.getCost())));
  }

  @Override
  public void deleteTask(TaskRef req, StreamObserver<Task> out) {
    run(out, () -> task(service.delete(req.getPool(), req.getName())));
  }

  @Override
  public void getTask(TaskRef req, StreamObserver<Task> out) {
    run(out, () -> task(service.get(req.getPool(), req.getName())));
  }

  @Override
  public void listTasks(ListTasksRequest req, StreamObserver<ListTasksResponse> out) {
    run(out, () -> {
      ListTasksResponse.Builder b = ListTasksResponse.newBuilder();
      service.list(req.getPool(), req.getStatus()).forEach(t -> b.addTasks(task(t)));
      return b.build();
    });
  }

  @Override
  public void listPools(ListPoolsRequest req, StreamObserver<ListPoolsResponse> out) {
    run(out, () -> {
      ListPoolsResponse.Builder b = ListPoolsResponse.newBuilder();
      for (PoolInfo p : service.pools()) {
        b.addPools(Pool.newBuilder().setName(p.name()).setTasks(p.tasks()).setDeleted(p.deleted())
            .setLiveMembers(p.liveMembers()));
      }
      return b.build();
    });
  }

  @Override
  public void listMembers(ListMembersRequest req, StreamObserver<ListMembersResponse> out) {
    run(out, () -> {
      ListMembersResponse.Builder b = ListMembersResponse.newBuilder();
      for (MemberView m : service.members(req.getPool())) {
        Member.Builder mb = Member.newBuilder().setId(m.id()).setUp(m.up())
            .setLeaseExpiresAtMillis(m.leaseUntilMillis()).setAffinity(m.affinity())
            .setCapacity(m.capacity() == null ? 0 : m.capacity()).setUnlimited(m.capacity() == null).setUsed(m.used());
        if (m.version() != null) {
          mb.setVersion(m.version());
        }
        b.addMembers(mb);
      }
      return b.build();
    });
  }

  /** The message of a task view (absent values as empty strings and zeros). */
  static Task task(TaskView v) {
    return Task.newBuilder().setName(v.name()).setArgsJson(v.args()).setCost(v.cost()).setRevision(v.revision())
        .setStatus(v.status().jsonName()).setOwner(v.owner() == null ? "" : v.owner())
        .setToken(v.token() == null ? 0 : v.token()).setCreatedAtMillis(v.createdMillis())
        .setUpdatedAtMillis(v.updatedMillis()).setDeletedAtMillis(v.deletedMillis())
        .setLastError(v.lastError() == null ? "" : v.lastError()).setReason(v.reason() == null ? "" : v.reason())
        .build();
  }

  private static <T> void run(StreamObserver<T> out, Supplier<T> call) {
    T result;
    try {
      result = call.get();
    } catch (RuntimeException e) {
      out.onError(refusal(e).asRuntimeException());
      return;
    }
    out.onNext(result);
    out.onCompleted();
  }

  /** The gRPC status that answers a request the task service refused with {@code kind}. */
  /**
   * The answer to a failed call: a refusal of the input names it; an unreachable store or an internal error says so
   * without connection details (the cause goes to the log).
   */
  static Status refusal(RuntimeException e) {
    if (e instanceof TaskServiceException t && t.kind() != ErrorKind.UNAVAILABLE) {
      return status(t.kind()).withDescription(t.getMessage());
    }
    if (e instanceof TaskServiceException) {
      log.warn("store unavailable: {}", e.getMessage());
      return Status.UNAVAILABLE.withDescription(TaskServiceException.UNAVAILABLE_TO_CLIENTS);
    }
    if (e instanceof UnsupportedOperationException) {
      return Status.UNIMPLEMENTED.withDescription("not supported by this store: " + e.getMessage());
    }
    log.error("internal error in the tasks service", e);
    return Status.INTERNAL.withDescription("internal error (the server's log has the cause)");
  }

  static Status status(ErrorKind kind) {
    return switch (kind) {
      case BAD_INPUT, TOO_LARGE -> Status.INVALID_ARGUMENT;
      case UNAUTHENTICATED -> Status.UNAUTHENTICATED;
      case NOT_FOUND -> Status.NOT_FOUND;
      case CONFLICT -> Status.ALREADY_EXISTS;
      case UNAVAILABLE -> Status.UNAVAILABLE;
    };
  }
}
