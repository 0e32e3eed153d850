package io.allot.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The queue a {@code JobHandler} bean takes its jobs from, on the handler's class or on its {@code @Bean} method:
 *
 * <pre>{@code
 * @Bean @JobQueueName("emails")
 * JobHandler welcomeMails(Mailer mailer) { return job -> mailer.send(job.key(), job.data()); }
 * }</pre>
 *
 * The property {@code allot.jobs.<bean name>.queue} wins over it; without either, the queue is the bean's name.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface JobQueueName {
  /** The queue's name. */
  String value();
}
