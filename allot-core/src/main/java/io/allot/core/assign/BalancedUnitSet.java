package io.allot.core.assign;

import io.allot.core.model.Names;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The unit set of one {@code balanced} run: validates the units (with the same checks and messages
 * as {@link Inputs#units}) and lets the previous table's units be "taken" one by one, so that the
 * units never taken are the ones that were not running before.
 *
 * <p>Open addressing over one array (no per-entry objects, unlike {@link java.util.HashSet}): at a
 * million units it builds several times faster and leaves almost nothing for the garbage
 * collector. Slots are found from {@link String#hashCode()} (cached in the string) scrambled by a
 * Fibonacci multiplier, since similar names have clustered hash codes.
 */
final class BalancedUnitSet {
  private final String[] slots;
  private final int[] hashes; // hashCode of each slot's unit: most probes never touch a string
  private final boolean[] taken;
  private final int shift;
  private final int size;

  private BalancedUnitSet(String[] slots, int[] hashes, boolean[] taken, int shift, int size) {
    this.slots = slots;
    this.hashes = hashes;
    this.taken = taken;
    this.shift = shift;
    this.size = size;
  }

  /**
   * Builds the set.
   *
   * @throws IllegalArgumentException if a unit is null, empty or listed twice (as {@link
   *     Inputs#units})
   */
  static BalancedUnitSet of(Collection<String> units) {
    if (units == null) {
      throw new IllegalArgumentException("units is null");
    }
    Object[] a = units.toArray();
    int bits = Math.max(4, 64 - Long.numberOfLeadingZeros(Math.max(1, 2L * a.length) - 1)); // load <= 1/2
    if (bits > 30) {
      throw new IllegalArgumentException("too many units: " + a.length);
    }
    String[] slots = new String[1 << bits];
    int[] hashes = new int[slots.length];
    int shift = 32 - bits;
    int mask = slots.length - 1;
    for (Object o : a) {
      String u = Names.checkUnit((String) o);
      int h = u.hashCode();
      int s = (h * 0x9E3779B9) >>> shift;
      while (true) {
        String x = slots[s];
        if (x == null) {
          slots[s] = u;
          hashes[s] = h;
          break;
        }
        if (hashes[s] == h && x.equals(u)) {
          throw new IllegalArgumentException("unit " + Names.quote(u) + " is listed twice");
        }
        s = (s + 1) & mask;
      }
    }
    return new BalancedUnitSet(slots, hashes, new boolean[slots.length], shift, a.length);
  }

  int size() {
    return size;
  }

  /** Marks {@code u} as taken; true if it is in the set and was not taken before. */
  boolean take(String u) {
    int mask = slots.length - 1;
    int h = u.hashCode();
    int s = (h * 0x9E3779B9) >>> shift;
    while (true) {
      String x = slots[s];
      if (x == null) {
        return false;
      }
      if (hashes[s] == h && x.equals(u)) {
        if (taken[s]) {
          return false;
        }
        taken[s] = true;
        return true;
      }
      s = (s + 1) & mask;
    }
  }

  /** The units never taken, in no particular order. */
  List<String> untaken() {
    List<String> out = new ArrayList<>();
    for (int s = 0; s < slots.length; s++) {
      if (slots[s] != null && !taken[s]) {
        out.add(slots[s]);
      }
    }
    return out;
  }

  /** All units, in no particular order. */
  List<String> all() {
    List<String> out = new ArrayList<>(size);
    for (String x : slots) {
      if (x != null) {
        out.add(x);
      }
    }
    return out;
  }
}
