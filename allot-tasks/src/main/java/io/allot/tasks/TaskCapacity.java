package io.allot.tasks;

/**
 * A member's capacity for long-running tasks, in cost units, derived from the machine when it is not configured:
 * {@code min(availableProcessors × perCpu, maxHeapMiB / perTaskMiB)}, at least 1. The defaults ({@value #PER_CPU} per
 * CPU, {@value #PER_TASK_MIB} MiB of heap per task) fit tasks that hold a connection and a little state each (an
 * observer on a websocket); give a task a cost above 1 when it needs more, or configure the capacity.
 */
public final class TaskCapacity {
  /** Tasks of cost 1 per available processor. */
  public static final int PER_CPU = 100;
  /** MiB of max heap per task of cost 1. */
  public static final int PER_TASK_MIB = 8;

  private TaskCapacity() {}

  /** The capacity of this JVM by the default formula. */
  public static int fromResources() {
    return of(Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory(), PER_CPU, PER_TASK_MIB);
  }

  /**
   * The formula: {@code min(cpus × perCpu, maxHeapBytes / MiB / perTaskMiB)}, at least 1.
   *
   * @throws IllegalArgumentException if {@code perCpu} or {@code perTaskMiB} is not positive
   */
  public static int of(int cpus, long maxHeapBytes, int perCpu, int perTaskMiB) {
    if (perCpu < 1 || perTaskMiB < 1) {
      throw new IllegalArgumentException("perCpu and perTaskMiB must be >= 1 but were " + perCpu + ", " + perTaskMiB);
    }
    long byCpu = (long) Math.max(1, cpus) * perCpu;
    long byHeap = maxHeapBytes == Long.MAX_VALUE ? Long.MAX_VALUE : maxHeapBytes / (1024L * 1024L) / perTaskMiB;
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE - 1, Math.min(byCpu, byHeap)));
  }
}
