package io.allot.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.allot.store.Store;
import io.allot.store.tasks.TaskFault;
import io.allot.store.tasks.TaskRun;
import io.allot.store.tasks.TaskSpecs;
import io.allot.store.tasks.TaskSpecsContractTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The task-specs contract on PostgreSQL (a schema of its own), two stores as two processes would have, used in turn.
 * Plus what SQL users see in the table. (The random comparison with the memory reference is in the contract.)
 */
class PostgresTaskSpecsTest extends TaskSpecsContractTest {
  @RegisterExtension
  static final PeerStores STORES = new PeerStores();
  private static final TestSchema SCHEMA = STORES.schema();

  @Override
  protected Store store() {
    return STORES.store();
  }

  @Override
  protected TaskSpecs specs(String pool) {
    return STORES.next().taskSpecs(pool);
  }


  @Test
  void sqlUsersSeeSpecsRunsAndFaultsInTheTable() throws SQLException {
    TaskSpecs s = specs(pool());
    s.create("a", "{\"venue\":\"x\"}", 3);
    s.started("a", new TaskRun("m1", 42, 1, 0));
    s.fault("a", 42, new TaskFault(2, true, "boom", 1234));
    s.create("b", "{}", 1);
    s.delete("b");
    try (Connection raw = TestSchema.raw(); Statement st = raw.createStatement();
        ResultSet rs = st.executeQuery("SELECT name, args, cost, revision, deleted_at IS NULL, run_member, run_token, "
            + "fault_failures, fault_failing, fault_error, fault_at_ms FROM " + SCHEMA.quoted()
            + ".task_specs WHERE pool = '" + pool() + "' ORDER BY name")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("a");
      assertThat(rs.getString(2)).isEqualTo("{\"venue\":\"x\"}");
      assertThat(rs.getInt(3)).isEqualTo(3);
      assertThat(rs.getLong(4)).isEqualTo(1);
      assertThat(rs.getBoolean(5)).isTrue();
      assertThat(rs.getString(6)).isEqualTo("m1");
      assertThat(rs.getLong(7)).isEqualTo(42);
      assertThat(rs.getInt(8)).isEqualTo(2);
      assertThat(rs.getBoolean(9)).isTrue();
      assertThat(rs.getString(10)).isEqualTo("boom");
      assertThat(rs.getLong(11)).isEqualTo(1234);
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("b");
      assertThat(rs.getBoolean(5)).isFalse();
      assertThat(rs.getString(6)).isNull();
      assertThat(rs.next()).isFalse();
    }
    assertThat(s.version()).isEqualTo(3); // create, create, delete: the run and fault reports are not changes of the spec
  }

  @Test
  void extremeTokensAndNegativeOnesCompareAsNumbers() {
    TaskSpecs s = specs(pool());
    s.create("a", "{}", 1);
    assertThat(s.started("a", new TaskRun("m1", -10, 1, 0))).isTrue();
    assertThat(s.started("a", new TaskRun("m1", -11, 1, 0))).isFalse();
    assertThat(s.started("a", new TaskRun("m2", Long.MAX_VALUE, 1, 0))).isTrue();
    assertThat(s.fault("a", Long.MAX_VALUE, new TaskFault(1, false, "x", Long.MIN_VALUE))).isTrue();
    assertThat(s.get("a").orElseThrow().fault().lastErrorMillis()).isEqualTo(Long.MIN_VALUE);
    assertThat(s.started("a", new TaskRun("m3", Long.MAX_VALUE - 1, 1, 0))).isFalse();
  }
}
