package io.allot.core.assign;

import io.allot.core.model.Member;
import java.util.Collection;

/**
 * Computes an assignment table: a pure, deterministic function of its inputs.
 *
 * <p>Contract every strategy meets (and the property tests check):
 *
 * <ul>
 *   <li><b>Determinism</b>: the table is a function of the table in force and the inputs. The
 *       same members (with affinity and capacity), units and previous table give an identical
 *       {@link Table}, whatever the order of the collections, in any instance and any process: any
 *       distributor instance computes the same. {@link #update} with a correct {@link Changes}
 *       hint gives the same table as {@link #assign} from the same previous table, so a chain of
 *       changes applied incrementally gives the same tables as recomputing each step (checked by
 *       {@code DeterminismProperties}). Stateless strategies ({@link #usesPrevious()} false) are
 *       moreover a function of the inputs alone.
 *   <li><b>Coverage</b>: every unit is either assigned to exactly one member or listed in {@link
 *       Table#unassigned()} (only when capacity runs out).
 *   <li>A member with affinity 0 gets no units; a member never gets more than its capacity.
 *   <li>Bad input (null or empty names, a member or unit listed twice) is rejected with an {@link
 *       IllegalArgumentException} that names it; nothing partial is returned.
 * </ul>
 *
 * Implementations are immutable and thread-safe.
 */
public interface Assigner {

  /** The strategy's name, as accepted by {@link Assigners#byName(String)}. */
  String name();

  /**
   * Computes the table.
   *
   * @param members the live members; ids must be distinct
   * @param units the work units; names must be distinct
   * @param previous the table currently in force ({@link Table#EMPTY} if none). Stateless
   *     strategies ignore it for the result, but may use it to compute faster.
   */
  Table assign(Collection<Member> members, Collection<String> units, Table previous);

  /**
   * True if the result depends on the previous table (a stateful strategy such as {@code balanced}); false if
   * {@code previous} only speeds the computation up. Callers may then reuse a table for the same members and units.
   */
  default boolean usesPrevious() {
    return false;
  }

  /** {@link #assign(Collection, Collection, Table)} with no previous table. */
  default Table assign(Collection<Member> members, Collection<String> units) {
    return assign(members, units, Table.EMPTY);
  }

  /**
   * The incremental form: the same result as {@code assign(members, units, previous)}, given that
   * {@code members} and {@code units} differ from the inputs that produced {@code previous} only by
   * {@code changes}. Strategies use the hint to skip work that cannot change; the default ignores
   * it.
   */
  default Table update(Table previous, Collection<Member> members, Collection<String> units, Changes changes) {
    return assign(members, units, previous);
  }
}
