package io.allot.store.postgres;

import io.allot.store.Topic;
import io.allot.store.tasks.TaskCreated;
import io.allot.store.tasks.TaskFault;
import io.allot.store.tasks.TaskLimits;
import io.allot.store.tasks.TaskRun;
import io.allot.store.tasks.TaskSpec;
import io.allot.store.tasks.TaskSpecs;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link TaskSpecs} of one pool on PostgreSQL: the rows of table {@code task_specs} (schema version 8) and the
 * pool's row of {@code task_spec_versions}. Every write is one call of a function of {@code functions.sql}
 * ({@code create_task_spec}, {@code update_task_spec}, ...): it locks the spec's row, changes it, bumps the pool's
 * version and NOTIFYs {@link Topic#taskSpecs(String)} with the task name, in one transaction. Reads are plain
 * SELECTs. Times are {@code clock_timestamp()}, read in milliseconds rounded down (as {@link PgClock}). Input is
 * checked here ({@link TaskLimits}), before any call. A cheap, immutable view: the statements are built once per
 * store.
 */
record PgTaskSpecs(PgJdbc db, PgChannels channels, Statements sql, String pool) implements TaskSpecs {
  private static final String MS = "floor(extract(epoch FROM %s) * 1000)::bigint";

  /** The statements, for one schema. */
  static final class Statements {
    final String create;
    final String update;
    final String updateArgs;
    final String delete;
    final String get;
    final String list;
    final String version;
    final String started;
    final String fault;
    final String purge;

    /** {@code s}: the quoted schema. */
    Statements(String s) {
      String spec = columns("(o_spec).");
      create = "SELECT o_outcome, " + spec + " FROM " + s + ".create_task_spec(?, ?, ?, ?, ?, ?)";
      update = "SELECT o_outcome, " + spec + " FROM " + s + ".update_task_spec(?, ?, ?, ?, ?, ?)";
      // the cost as the row has it once locked: FOR UPDATE waits for a concurrent update and reads its new version
      // (READ COMMITTED), all in this one statement; no live row: null, and the function returns no row
      updateArgs = "SELECT o_outcome, " + spec + " FROM " + s + ".update_task_spec(?, ?, ?, (SELECT c.cost FROM " + s
          + ".task_specs c WHERE c.pool = ? AND c.name = ? AND c.deleted_at IS NULL FOR UPDATE), ?, ?)";
      delete = "SELECT o_outcome, " + spec + " FROM " + s + ".delete_task_spec(?, ?, ?, ?)";
      String select = "SELECT '', " + columns("") + " FROM " + s + ".task_specs WHERE pool = ?";
      get = select + " AND name = ?";
      list = select + " ORDER BY name";
      version = "SELECT version FROM " + s + ".task_spec_versions WHERE pool = ?";
      started = "SELECT " + s + ".task_spec_started(?, ?, ?, ?, ?, ?, ?)";
      fault = "SELECT " + s + ".task_spec_fault(?, ?, ?, ?, ?, ?, ?, ?, ?)";
      purge = "SELECT " + s + ".purge_task_spec(?, ?, ?, ?, ?)";
    }

    /** The columns {@link #spec} reads from its second column on, of a row or of {@code (o_spec).}. */
    private static String columns(String p) {
      return p + "name, " + p + "args, " + p + "cost, " + p + "revision, " + MS.formatted(p + "created_at") + ", "
          + MS.formatted(p + "updated_at") + ", " + MS.formatted(p + "deleted_at") + ", " + p + "run_member, " + p
          + "run_token, " + p + "run_revision, " + MS.formatted(p + "run_started_at") + ", " + p + "fault_failures, "
          + p + "fault_failing, " + p + "fault_error, " + p + "fault_at_ms";
    }
  }

  @Override
  public TaskCreated create(String name, String args, int cost) {
    check(name, args, cost);
    PgChannels.Note note = note(name);
    return db.query("create task " + name + " in pool " + pool, sql.create, rs -> {
      rs.next();
      return new TaskCreated(TaskCreated.Outcome.valueOf(rs.getString(1)), spec(rs));
    }, pool, name, args, cost, note.pgChannel(), note.payload());
  }

  @Override
  public Optional<TaskSpec> update(String name, String args, int cost) {
    check(name, args, cost);
    PgChannels.Note note = note(name);
    return db.query("update task " + name + " in pool " + pool, sql.update, PgTaskSpecs::one, pool, name, args, cost,
        note.pgChannel(), note.payload());
  }

  @Override
  public Optional<TaskSpec> updateArgs(String name, String args) {
    TaskLimits.checkName(name);
    TaskLimits.checkArgs(args);
    PgChannels.Note note = note(name);
    return db.query("update task " + name + " in pool " + pool, sql.updateArgs, PgTaskSpecs::one, pool, name, args,
        pool, name, note.pgChannel(), note.payload());
  }

  @Override
  public Optional<TaskSpec> delete(String name) {
    TaskLimits.checkName(name);
    PgChannels.Note note = note(name);
    return db.query("delete task " + name + " in pool " + pool, sql.delete, PgTaskSpecs::one, pool, name,
        note.pgChannel(), note.payload());
  }

  @Override
  public Optional<TaskSpec> get(String name) {
    TaskLimits.checkName(name);
    return db.query("read task " + name + " in pool " + pool, sql.get, PgTaskSpecs::one, pool, name);
  }

  @Override
  public List<TaskSpec> list() {
    return db.query("list the tasks of pool " + pool, sql.list, rs -> {
      List<TaskSpec> out = new ArrayList<>();
      while (rs.next()) {
        out.add(spec(rs));
      }
      return List.copyOf(out);
    }, pool);
  }

  @Override
  public long version() {
    return db.query("read the task spec version of pool " + pool, sql.version, rs -> rs.next() ? rs.getLong(1) : 0L,
        pool);
  }

  @Override
  public boolean started(String name, TaskRun run) {
    TaskLimits.checkName(name);
    Objects.requireNonNull(run, "run");
    PgChannels.Note note = note(name);
    return db.query("record the start of task " + name + " in pool " + pool, sql.started, PgJdbc.BOOLEAN, pool, name,
        run.member(), run.token(), run.revision(), note.pgChannel(), note.payload());
  }

  @Override
  public boolean fault(String name, long token, TaskFault fault) {
    TaskLimits.checkName(name);
    PgChannels.Note note = note(name);
    return db.call("record the faults of task " + name + " in pool " + pool, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.fault)) {
        ps.setString(1, pool);
        ps.setString(2, name);
        ps.setLong(3, token);
        if (fault == null) {
          ps.setNull(4, Types.INTEGER);
          ps.setNull(5, Types.BOOLEAN);
          ps.setNull(6, Types.VARCHAR);
          ps.setNull(7, Types.BIGINT);
        } else {
          ps.setInt(4, fault.failures());
          ps.setBoolean(5, fault.failing());
          ps.setString(6, fault.lastError());
          ps.setLong(7, fault.lastErrorMillis());
        }
        ps.setString(8, note.pgChannel());
        ps.setString(9, note.payload());
        try (ResultSet rs = ps.executeQuery()) {
          return PgJdbc.BOOLEAN.read(rs);
        }
      }
    });
  }

  @Override
  public boolean purge(String name, long revision) {
    TaskLimits.checkName(name);
    PgChannels.Note note = note(name);
    return db.query("purge task " + name + " from pool " + pool, sql.purge, PgJdbc.BOOLEAN, pool, name, revision,
        note.pgChannel(), note.payload());
  }

  private PgChannels.Note note(String name) {
    return channels.note(Topic.taskSpecs(pool), name);
  }

  private static void check(String name, String args, int cost) {
    TaskLimits.checkName(name);
    TaskLimits.checkArgs(args);
    TaskLimits.checkCost(cost);
  }

  private static Optional<TaskSpec> one(ResultSet rs) throws SQLException {
    return rs.next() ? Optional.of(spec(rs)) : Optional.empty();
  }

  /** The spec in columns 2 to 16 ({@link Statements#columns}). */
  private static TaskSpec spec(ResultSet rs) throws SQLException {
    TaskRun run = null;
    String member = rs.getString(9);
    if (member != null) {
      run = new TaskRun(member, rs.getLong(10), rs.getLong(11), rs.getLong(12));
    }
    TaskFault fault = null;
    String error = rs.getString(15);
    if (error != null) {
      fault = new TaskFault(rs.getInt(13), rs.getBoolean(14), error, rs.getLong(16));
    }
    return new TaskSpec(rs.getString(2), rs.getString(3), rs.getInt(4), rs.getLong(5), rs.getLong(6), rs.getLong(7),
        rs.getLong(8), run, fault);
  }
}
