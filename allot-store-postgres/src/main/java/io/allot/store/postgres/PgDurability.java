package io.allot.store.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The connect-time durability check: what the server's settings allow it to lose, in findings that name the setting
 * and the consequence ({@link io.allot.store.Safety#findings()}). A server in recovery (a standby) is refused: it
 * takes no writes. Reading ({@link #read}) and judging ({@link #assess}) are apart, so the judgement is testable
 * without a server. Stateless.
 */
final class PgDurability {

  private static final String SETTINGS = "SELECT pg_is_in_recovery(), current_setting('fsync'), "
      + "current_setting('synchronous_commit'), current_setting('full_page_writes'), current_user";
  /** Standbys streaming from this server; sync_state is null for a user without pg_read_all_stats. */
  private static final String STANDBYS = "SELECT coalesce(application_name, '') || ' (' "
      + "|| coalesce(host(client_addr), 'local') || ')', sync_state FROM pg_stat_replication ORDER BY 1";

  private PgDurability() {}

  /**
   * What the server says about itself.
   *
   * @param inRecovery        {@code pg_is_in_recovery()}: a standby
   * @param fsync             {@code fsync}
   * @param synchronousCommit {@code synchronous_commit}
   * @param fullPageWrites    {@code full_page_writes}
   * @param asyncStandbys     the standbys that replicate asynchronously ({@code name (address)})
   * @param hiddenStandbys    how many standbys replicate in a way this user may not see (no {@code pg_monitor})
   * @param user              the user connected, for the finding about hidden standbys
   */
  record Settings(boolean inRecovery, String fsync, String synchronousCommit, String fullPageWrites,
      List<String> asyncStandbys, int hiddenStandbys, String user) {
    Settings {
      asyncStandbys = List.copyOf(asyncStandbys);
    }
  }

  /**
   * What the settings mean for allot.
   *
   * @param lossPossible whether the server may lose writes it acknowledged
   * @param findings     one line per setting that allows it, naming the setting and the consequence
   */
  record Assessment(boolean lossPossible, List<String> findings) {
    Assessment {
      findings = List.copyOf(findings);
    }
  }

  /** Reads the settings over {@code c} (any user may). */
  static Settings read(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      boolean inRecovery;
      String fsync;
      String synchronousCommit;
      String fullPageWrites;
      String user;
      try (ResultSet rs = st.executeQuery(SETTINGS)) {
        rs.next();
        inRecovery = rs.getBoolean(1);
        fsync = rs.getString(2);
        synchronousCommit = rs.getString(3);
        fullPageWrites = rs.getString(4);
        user = rs.getString(5);
      }
      List<String> async = new ArrayList<>();
      int hidden = 0;
      try (ResultSet rs = st.executeQuery(STANDBYS)) {
        while (rs.next()) {
          String state = rs.getString(2);
          if (state == null) {
            hidden++;
          } else if (state.equals("async")) {
            async.add(rs.getString(1));
          }
        }
      }
      return new Settings(inRecovery, fsync, synchronousCommit, fullPageWrites, async, hidden, user);
    }
  }

  /**
   * Judges {@code s} for the store at {@code where}.
   *
   * @throws IllegalStateException if the server is in recovery (a standby), naming it
   */
  static Assessment assess(String where, Settings s) {
    if (s.inRecovery()) {
      throw new IllegalStateException(where + " is a standby in recovery (pg_is_in_recovery() = true): it takes no "
          + "writes, and every claim writes; connect allot to the primary (with several hosts in the URI, add "
          + "target_session_attrs=read-write)");
    }
    List<String> findings = new ArrayList<>();
    if ("off".equals(s.fsync())) {
      findings.add("fsync=off: an operating system crash or power loss can lose or corrupt committed data, "
          + "ownership and tokens included; claims wait the lost-state guard after every restart of the server");
    }
    if ("off".equals(s.synchronousCommit())) {
      findings.add("synchronous_commit=off: a server crash loses the last commits (up to 3 x wal_writer_delay) "
          + "that clients were told had succeeded; claims wait the lost-state guard after every restart of the "
          + "server");
    }
    if ("off".equals(s.fullPageWrites())) {
      findings.add("full_page_writes=off: an operating system crash or power loss can leave torn pages, corrupting "
          + "tables (ownership and tokens included) beyond what WAL replay repairs; keep it on unless the file "
          + "system writes pages atomically");
    }
    for (String standby : s.asyncStandbys()) {
      findings.add("standby " + standby + " replicates asynchronously (pg_stat_replication.sync_state = async): a "
          + "failover to it can lose the last commits; claims wait the lost-state guard after a promotion (a new "
          + "timeline)");
    }
    if (s.hiddenStandbys() > 0) {
      findings.add(s.hiddenStandbys() + " standby(s) replicate from this server, but pg_stat_replication.sync_state "
          + "is hidden from user " + s.user() + " (grant it pg_monitor to check): a failover to an asynchronous one "
          + "can lose the last commits; claims wait the lost-state guard after a promotion");
    }
    return new Assessment(!findings.isEmpty(), findings);
  }
}
