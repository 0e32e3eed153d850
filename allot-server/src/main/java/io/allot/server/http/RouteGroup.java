package io.allot.server.http;

import io.allot.store.StoreUnavailableException;
import io.allot.tasks.service.TaskServiceException;
import java.util.List;

/**
 * A group of REST routes under {@code /api/v1} that {@link ApiHandler} asks, in order, for the paths its own routes do
 * not serve ({@link ApiHandler#withRoutes}). A group answers its paths or returns null; it refuses as the handler
 * does, by throwing ({@code TaskServiceException} for 400/401/404/409, {@link ApiHandler#allow} for 405), and checks
 * writes with {@link ApiHandler#authorize} before it reads the body. Its routes are listed in {@link
 * ApiHandler#ROUTES} and the OpenAPI document.
 */
public interface RouteGroup {
  /**
   * The answer to {@code call}, or null if {@code seg} is none of this group's paths.
   *
   * @param seg the decoded path segments after {@code /api/v1}
   * @param api the handler: its write checks and body reading
   */
  ApiHandler.Reply route(ApiHandler.Call call, List<String> seg, ApiHandler api);

  /** The refusal (503, the store never named to the client) of a call a group made on an unreachable store. */
  static TaskServiceException unavailable(StoreUnavailableException e) {
    return new TaskServiceException(TaskServiceException.ErrorKind.UNAVAILABLE, "store unavailable: "
        + e.getMessage());
  }
}
