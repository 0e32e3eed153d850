package io.allot.testkit;

import java.util.List;
import java.util.Optional;

/** {@link FaultyStore}'s {@link io.allot.store.tasks.TaskSpecs}: every call but {@code pool()} goes through the fault first. */
final class FaultyTaskSpecs implements io.allot.store.tasks.TaskSpecs {
  private final FaultyStore f;
  private final io.allot.store.tasks.TaskSpecs d;

  FaultyTaskSpecs(FaultyStore f, io.allot.store.tasks.TaskSpecs d) {
    this.f = f;
    this.d = d;
  }

  @Override
  public String pool() {
    return d.pool();
  }

  @Override
  public io.allot.store.tasks.TaskCreated create(String name, String args, int cost) {
    f.before("taskSpecs.create");
    return d.create(name, args, cost);
  }

  @Override
  public java.util.Optional<io.allot.store.tasks.TaskSpec> update(String name, String args, int cost) {
    f.before("taskSpecs.update");
    return d.update(name, args, cost);
  }

  @Override
  public java.util.Optional<io.allot.store.tasks.TaskSpec> delete(String name) {
    f.before("taskSpecs.delete");
    return d.delete(name);
  }

  @Override
  public java.util.Optional<io.allot.store.tasks.TaskSpec> get(String name) {
    f.before("taskSpecs.get");
    return d.get(name);
  }

  @Override
  public List<io.allot.store.tasks.TaskSpec> list() {
    f.before("taskSpecs.list");
    return d.list();
  }

  @Override
  public long version() {
    f.before("taskSpecs.version");
    return d.version();
  }

  @Override
  public boolean started(String name, io.allot.store.tasks.TaskRun run) {
    f.before("taskSpecs.started");
    return d.started(name, run);
  }

  @Override
  public boolean fault(String name, long token, io.allot.store.tasks.TaskFault fault) {
    f.before("taskSpecs.fault");
    return d.fault(name, token, fault);
  }

  @Override
  public boolean purge(String name, long revision) {
    f.before("taskSpecs.purge");
    return d.purge(name, revision);
  }
}
