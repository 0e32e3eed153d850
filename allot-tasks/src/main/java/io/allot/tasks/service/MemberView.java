package io.allot.tasks.service;

import java.util.Objects;

/**
 * A member of a pool as the API shows it. Immutable.
 *
 * @param id               the member id ({@code host:port})
 * @param up               true if its lease is live at store time now
 * @param leaseUntilMillis when its lease expires (store time, epoch milliseconds)
 * @param affinity         its weight (0 = no tasks)
 * @param capacity         the most cost units it carries, or null for no limit
 * @param used             the sum of the costs of the live tasks the table gives it
 * @param version          its {@code version} attribute, or null
 */
public record MemberView(String id, boolean up, long leaseUntilMillis, int affinity, Integer capacity, long used,
    String version) {
  public MemberView {
    Objects.requireNonNull(id, "id");
  }
}
