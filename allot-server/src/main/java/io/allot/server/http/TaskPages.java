package io.allot.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.allot.store.tasks.TaskLimits;
import io.allot.tasks.service.TaskJson;
import io.allot.tasks.service.TaskService;
import io.allot.tasks.service.TaskServiceException;
import io.allot.tasks.service.TaskServiceException.ErrorKind;
import io.allot.tasks.service.TaskView;
import java.util.Comparator;
import java.util.List;

/**
 * One page of {@code GET /api/v1/pools/{pool}/tasks}: the tasks by name (Java's order of strings, the same on every
 * store) after the cursor {@code after} (a task name: the {@code next} of the page before), at most {@code limit}
 * (1..{@value ApiHandler#MAX_LIMIT}, default {@value ApiHandler#MAX_LIMIT}); {@code next} is the last name of a full
 * page with more after it, else null.
 */
final class TaskPages {
  private TaskPages() {}

  static ObjectNode page(TaskService service, String pool, String status, String limitText, String after) {
    int limit = limit(limitText);
    if (after != null) {
      try {
        TaskLimits.checkName(after);
      } catch (IllegalArgumentException e) {
        throw bad("after: " + e.getMessage() + " (give the 'next' of the page before)");
      }
    }
    List<TaskView> rest = service.list(pool, status).stream()
        .filter(v -> after == null || v.name().compareTo(after) > 0)
        .sorted(Comparator.comparing(TaskView::name))
        .limit(limit + 1L)
        .toList();
    List<TaskView> page = rest.size() > limit ? rest.subList(0, limit) : rest;
    ObjectNode out = TaskJson.tasks(page);
    out.put("next", rest.size() > limit ? page.get(limit - 1).name() : null);
    return out;
  }

  private static int limit(String text) {
    if (text == null) {
      return ApiHandler.MAX_LIMIT;
    }
    int n;
    try {
      n = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      n = 0;
    }
    if (n < 1 || n > ApiHandler.MAX_LIMIT) {
      throw bad("limit: must be an integer from 1 to " + ApiHandler.MAX_LIMIT + " but was '"
          + (text.length() > 40 ? text.substring(0, 40) + "..." : text) + "'");
    }
    return n;
  }

  private static TaskServiceException bad(String message) {
    return new TaskServiceException(ErrorKind.BAD_INPUT, message);
  }
}
