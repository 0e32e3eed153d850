package io.allot.core.assign;

import io.allot.core.model.Names;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * An assignment table: which member runs which unit. Immutable and safe to share.
 *
 * <p>Every member the assigner was given appears, in {@linkplain Names#BYTE_ORDER byte order},
 * with its units in <em>table order</em> (the order the strategy placed them; for {@code
 * seed-ring} the order the original distributor publishes). Units that could not be placed
 * because capacity ran out are listed by {@link #unassigned()}: never silently dropped.
 */
public final class Table {
  /** The table with no members and no units. */
  public static final Table EMPTY = new Table(new TreeMap<>(Names.BYTE_ORDER), List.of());

  private final Map<String, List<String>> byMember; // unmodifiable, byte-ordered
  private final List<String> unassigned;
  private final int assignedCount;
  private volatile Map<String, String> ownerIndex; // built on first ownerOf()
  private final Object provenance; // set by the strategy that built it; not part of equality

  private Table(TreeMap<String, List<String>> byMember, List<String> unassigned) {
    this(byMember, unassigned, null);
  }

  private Table(TreeMap<String, List<String>> byMember, List<String> unassigned, Object provenance) {
    this.provenance = provenance;
    this.byMember = Collections.unmodifiableMap(byMember);
    this.unassigned = unassigned;
    int n = 0;
    for (List<String> l : byMember.values()) {
      n += l.size();
    }
    this.assignedCount = n;
  }

  /**
   * Builds a table from a member-to-units map. Units keep the order of each list.
   *
   * @throws IllegalArgumentException if a unit appears twice or a name is empty
   */
  public static Table of(Map<String, ? extends List<String>> byMember, List<String> unassigned) {
    Builder b = builder();
    byMember.forEach(b::put);
    for (String u : unassigned) {
      b.unassigned(u);
    }
    return b.build();
  }

  /** Builds a table from a member-to-units map with nothing unassigned. */
  public static Table of(Map<String, ? extends List<String>> byMember) {
    return of(byMember, List.of());
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Members (including those without units) in byte order, each with its units in table order. */
  public Map<String, List<String>> byMember() {
    return byMember;
  }

  /** The members of the table in byte order. */
  public Set<String> members() {
    return byMember.keySet();
  }

  /** The units of {@code member} in table order; empty if it has none or is not in the table. */
  public List<String> unitsOf(String member) {
    List<String> l = byMember.get(member);
    return l == null ? List.of() : l;
  }

  /** The member that {@code unit} is assigned to. */
  public Optional<String> ownerOf(String unit) {
    return Optional.ofNullable(ownerIndex().get(unit));
  }

  /** Unit to member, for every assigned unit. Built once, on first use. */
  public Map<String, String> ownerIndex() {
    Map<String, String> idx = ownerIndex;
    if (idx == null) {
      synchronized (this) {
        idx = ownerIndex;
        if (idx == null) {
          HashMap<String, String> m = new HashMap<>(Math.max(16, (int) (assignedCount / 0.75f) + 1));
          byMember.forEach((member, units) -> units.forEach(u -> m.put(u, member)));
          idx = Collections.unmodifiableMap(m);
          ownerIndex = idx;
        }
      }
    }
    return idx;
  }

  /** The owner index if {@link #ownerIndex()} already built it, else null (never builds it). */
  Map<String, String> ownerIndexIfBuilt() {
    return ownerIndex;
  }

  /** Units that could not be placed (not enough capacity), in a deterministic order. */
  public List<String> unassigned() {
    return unassigned;
  }

  /** Number of assigned units. */
  public int assignedCount() {
    return assignedCount;
  }

  /** Number of units, assigned or not. */
  public int unitCount() {
    return assignedCount + unassigned.size();
  }

  /**
   * The seed-compatible distribution hash: member → {@code "u1,u2"} (empty string when it has no
   * units), in byte order of members.
   *
   * @throws IllegalArgumentException naming the unit if a unit contains {@code ','}, which that
   *     layout cannot store
   */
  public Map<String, String> toDistributionHash() {
    Map<String, String> out = new LinkedHashMap<>();
    byMember.forEach((m, units) -> out.put(m, TableCodec.encode(units)));
    return out;
  }

  /**
   * The table as text, one line per member in byte order: {@code member:unit1,unit2} ({@code
   * member:} when it has none). This is the output of {@code allot assign} and the input of
   * {@code --previous}.
   */
  public String format() {
    StringBuilder b = new StringBuilder();
    byMember.forEach((m, units) -> b.append(m).append(':').append(TableCodec.encode(units)).append('\n'));
    return b.toString();
  }

  /** Load of each member (number of units), in byte order. */
  public Map<String, Integer> loads() {
    Map<String, Integer> out = new LinkedHashMap<>();
    byMember.forEach((m, units) -> out.put(m, units.size()));
    return out;
  }

  /** What the strategy that built this table recorded about it (for its incremental updates). */
  Object provenance() {
    return provenance;
  }

  /** Tables are equal when they hold the same members, with the same units in the same order. */
  @Override
  public boolean equals(Object o) {
    return o instanceof Table t && t.byMember.equals(byMember) && t.unassigned.equals(unassigned);
  }

  @Override
  public int hashCode() {
    return Objects.hash(byMember, unassigned);
  }

  @Override
  public String toString() {
    return "Table{members=" + byMember.size() + ", units=" + assignedCount + ", unassigned=" + unassigned.size() + "}";
  }

  /**
   * Collects a table whose members come in byte order, each exactly once, with lists the caller
   * guarantees immutable and free of duplicates: the map is built in linear time, without comparing
   * names. For strategies that have already sorted and validated their inputs. Not thread-safe; use
   * once.
   */
  static final class Sorted {
    private final String[] ids;
    private final List<String>[] lists;
    private int count;
    private List<String> unassigned = List.of();

    @SuppressWarnings("unchecked")
    Sorted(int members) {
      ids = new String[members];
      lists = new List[members];
    }

    /** Adds the next member (after the previous one in byte order) with an immutable list. */
    void put(String member, List<String> units) {
      ids[count] = member;
      lists[count++] = units;
    }

    /** Adds the next member with units from an array the table takes ownership of. */
    void putOwned(String member, String[] units) {
      put(member, Collections.unmodifiableList(Arrays.asList(units)));
    }

    void unassigned(List<String> units) {
      unassigned = List.copyOf(units);
    }

    Table build() {
      if (count != ids.length) {
        throw new IllegalStateException("expected " + ids.length + " members, got " + count);
      }
      for (int i = 1; i < count; i++) { // cheap: a mistake here would corrupt every lookup
        if (Names.compareBytes(ids[i - 1], ids[i]) >= 0) {
          throw new IllegalStateException("members out of byte order: " + ids[i - 1] + ", " + ids[i]);
        }
      }
      return new Table(new TreeMap<>(new SortedArrays(ids, lists)), unassigned);
    }
  }

  /** A read-only sorted map over parallel arrays, only for {@code new TreeMap<>(SortedMap)}. */
  private static final class SortedArrays extends java.util.AbstractMap<String, List<String>>
      implements java.util.SortedMap<String, List<String>> {
    private final String[] ids;
    private final List<String>[] lists;

    SortedArrays(String[] ids, List<String>[] lists) {
      this.ids = ids;
      this.lists = lists;
    }

    @Override
    public java.util.Comparator<? super String> comparator() {
      return Names.BYTE_ORDER;
    }

    @Override
    public int size() {
      return ids.length;
    }

    @Override
    public Set<Map.Entry<String, List<String>>> entrySet() {
      return new java.util.AbstractSet<>() {
        @Override
        public int size() {
          return ids.length;
        }

        @Override
        public java.util.Iterator<Map.Entry<String, List<String>>> iterator() {
          return new java.util.Iterator<>() {
            private int i;

            @Override
            public boolean hasNext() {
              return i < ids.length;
            }

            @Override
            public Map.Entry<String, List<String>> next() {
              if (i >= ids.length) {
                throw new java.util.NoSuchElementException();
              }
              Map.Entry<String, List<String>> e = new java.util.AbstractMap.SimpleImmutableEntry<>(ids[i], lists[i]);
              i++;
              return e;
            }
          };
        }
      };
    }

    @Override
    public java.util.SortedMap<String, List<String>> subMap(String from, String to) {
      throw new UnsupportedOperationException();
    }

    @Override
    public java.util.SortedMap<String, List<String>> headMap(String to) {
      throw new UnsupportedOperationException();
    }

    @Override
    public java.util.SortedMap<String, List<String>> tailMap(String from) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String firstKey() {
      return ids[0];
    }

    @Override
    public String lastKey() {
      return ids[ids.length - 1];
    }
  }

  /** Collects a table. Not thread-safe; use once. */
  public static final class Builder {
    private final TreeMap<String, List<String>> byMember = new TreeMap<>(Names.BYTE_ORDER);
    private final List<String> unassigned = new ArrayList<>();
    private boolean checkDuplicates = true;
    private Object provenance;

    private Builder() {}

    /**
     * Skips the duplicate-unit check in {@link #build()}; for assigners that guarantee it by
     * construction on large tables.
     */
    public Builder trusted() {
      this.checkDuplicates = false;
      return this;
    }

    /** Records strategy-private facts about the table being built. */
    Builder provenance(Object provenance) {
      this.provenance = provenance;
      return this;
    }

    /** Sets the units of {@code member} (replacing earlier ones), keeping their order. */
    public Builder put(String member, List<String> units) {
      Names.checkMember(member);
      byMember.put(member, List.copyOf(units));
      return this;
    }

    /** Sets the units of {@code member} from an array the builder takes ownership of. */
    public Builder putOwned(String member, String[] units) {
      Names.checkMember(member);
      byMember.put(member, Collections.unmodifiableList(Arrays.asList(units)));
      return this;
    }

    /** Sets the units of {@code member} to a list the caller guarantees is immutable (shared, not copied). */
    Builder putShared(String member, List<String> units) {
      byMember.put(member, units);
      return this;
    }

    /** Adds a member with no units unless it is already present. */
    public Builder member(String member) {
      Names.checkMember(member);
      byMember.putIfAbsent(member, List.of());
      return this;
    }

    public Builder unassigned(String unit) {
      unassigned.add(Names.checkUnit(unit));
      return this;
    }

    public Builder unassigned(List<String> units) {
      units.forEach(this::unassigned);
      return this;
    }

    public Table build() {
      if (checkDuplicates) {
        HashMap<String, String> seen = new HashMap<>();
        byMember.forEach(
            (m, units) -> {
              for (String u : units) {
                Names.checkUnit(u);
                String prev = seen.put(u, m);
                if (prev != null) {
                  throw new IllegalArgumentException(
                      "unit " + Names.quote(u) + " is assigned twice: to " + Names.quote(prev) + " and " + Names.quote(m));
                }
              }
            });
        for (String u : unassigned) {
          if (seen.containsKey(u)) {
            throw new IllegalArgumentException("unit " + Names.quote(u) + " is both assigned and unassigned");
          }
        }
      }
      return new Table(byMember, List.copyOf(unassigned), provenance);
    }
  }
}
