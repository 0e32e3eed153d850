package io.allot.server.http;

import io.allot.server.units.UnitsListEditor;
import io.allot.store.Store;
import io.allot.tasks.service.TaskService;
import io.allot.tasks.service.TaskServiceException;
import java.util.List;

/**
 * The route groups of a server beside the task routes, for {@link ApiHandler#withRoutes}: the table with owners
 * ({@link TableRoutes}), the units list ({@link UnitRoutes}), the live routing weights ({@link WeightRoutes}) and the
 * job queues ({@link QueueRoutes}).
 */
public final class ServerRoutes {
  private ServerRoutes() {}

  /**
   * The groups of a server on {@code store}: {@code tasks} decides which pools exist (404 for others) and gives the
   * members (with the ping verdicts it has).
   *
   * @param tableKey  the table the distributor publishes ({@code -distribution-namespace})
   * @param unitsList the units list ({@code -workunits-namespace})
   */
  public static List<RouteGroup> of(Store store, TaskService tasks, String tableKey, String unitsList) {
    return of(store, tasks.withUnitsList(unitsList), tableKey);
  }

  /**
   * The groups of a server on {@code store} whose pools each take their units from the list {@code tasks} names for
   * them ({@link TaskService#unitsListOf}): several distributors publishing into one table, as {@code allot dev} runs.
   */
  public static List<RouteGroup> of(Store store, TaskService tasks, String tableKey) {
    return List.of(new TableRoutes(store, tasks, tableKey),
        new UnitRoutes(tasks, pool -> new UnitsListEditor(store, listOf(tasks, pool))), new WeightRoutes(store, tasks),
        new QueueRoutes(store));
  }

  private static String listOf(TaskService tasks, String pool) {
    String key = tasks.unitsListOf(pool);
    if (key == null) {
      throw new TaskServiceException(TaskServiceException.ErrorKind.NOT_FOUND, "pool: '" + pool
          + "' takes its units from no units list on this server");
    }
    return key;
  }
}
