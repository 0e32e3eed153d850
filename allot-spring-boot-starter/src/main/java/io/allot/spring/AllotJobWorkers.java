package io.allot.spring;

import io.allot.jobs.JobHandler;
import io.allot.jobs.JobWorker;
import io.allot.store.Store;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * One {@link JobWorker} per {@link JobHandler} bean, each on its queue: {@code allot.jobs.<bean name>.queue}, else the
 * bean's {@link JobQueueName}, else the bean's name. Built with the context (a bad setting fails the start, naming it);
 * started and closed by {@link AllotLifecycle}; closing drains every worker side by side.
 */
public final class AllotJobWorkers implements AutoCloseable {
  /** Bean name to its worker, in bean definition order; immutable. */
  private final Map<String, JobWorker> workers;
  /** Bean name to its queue; immutable. */
  private final Map<String, String> queues;

  /**
   * The workers of every {@link JobHandler} bean of {@code beans}.
   *
   * @param meters the application's registry, or null (the workers then keep their meters to themselves)
   * @throws IllegalStateException if {@code allot.jobs} names a bean that is not a {@link JobHandler}
   * @throws IllegalArgumentException if a setting or a queue name is invalid (the message names it)
   */
  public AllotJobWorkers(Store store, AllotProperties properties, ListableBeanFactory beans, MeterRegistry meters) {
    List<String> names = Arrays.asList(beans.getBeanNamesForType(JobHandler.class));
    TreeSet<String> unknown = new TreeSet<>(properties.jobs().keySet());
    names.forEach(unknown::remove);
    if (!unknown.isEmpty()) {
      throw new IllegalStateException("allot.jobs." + unknown.first() + ": no JobHandler bean has that name (the "
          + "JobHandler beans: " + names + ")");
    }
    Map<String, JobWorker> w = new LinkedHashMap<>();
    Map<String, String> q = new LinkedHashMap<>();
    for (String name : names) {
      AllotProperties.JobSettings job = properties.jobs().getOrDefault(name, AllotProperties.JobSettings.DEFAULTS);
      JobQueueName annotated = beans.findAnnotationOnBean(name, JobQueueName.class);
      String queue = job.queue() != null ? job.queue() : annotated != null ? annotated.value() : name;
      q.put(name, queue);
      w.put(name, build(store, store.jobQueue(queue), beans.getBean(name, JobHandler.class), job, meters));
    }
    this.workers = Map.copyOf(w);
    this.queues = Map.copyOf(q);
  }

  private static JobWorker build(io.allot.store.Store store, io.allot.store.jobs.JobQueue queue, JobHandler handler,
      AllotProperties.JobSettings job, MeterRegistry meters) {
    JobWorker.Builder b = JobWorker.builder(queue, handler).drainTimeout(job.drainTimeout())
        .events(io.allot.store.events.EventWriter.of(store));
    Members.set(job.concurrency(), b::concurrency);
    Members.set(job.batchSize(), b::batchSize);
    Members.set(job.prefetch(), b::prefetch);
    Members.set(job.lockTtl(), b::lockTtl);
    Members.set(job.pollInterval(), b::pollInterval);
    Members.set(job.rateLimit(), b::rateLimit);
    if (meters != null) {
      b.meterRegistry(meters);
    }
    return b.build();
  }

  /** Bean name to the queue its worker takes jobs from. */
  public Map<String, String> queues() {
    return queues;
  }

  /** Bean name to its worker. */
  public Map<String, JobWorker> workers() {
    return workers;
  }

  /** Starts every worker. */
  public void start() {
    workers.values().forEach(JobWorker::start);
  }

  /** Closes every worker at once, each draining its running handlers within its drain timeout. Idempotent. */
  @Override
  public void close() {
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (JobWorker worker : workers.values()) {
      closing.add(CompletableFuture.runAsync(worker::close, r -> new Thread(r, "allot-close-" + worker.workerId()).start()));
    }
    CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new)).join();
  }

  @Override
  public String toString() {
    return "AllotJobWorkers" + queues;
  }
}
