package io.allot.tasks.service;

import java.util.Objects;

/**
 * A pool the API serves. Immutable.
 *
 * @param name        the pool (a services list key of the server)
 * @param tasks       live task specs
 * @param deleted     tombstones
 * @param liveMembers members whose lease is live at store time now
 */
public record PoolInfo(String name, int tasks, int deleted, int liveMembers) {
  public PoolInfo {
    Objects.requireNonNull(name, "name");
  }
}
