package io.allot.core.assign;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test oracle: a line-by-line port of the original Go code, slow on purpose (it rebuilds and
 * re-sorts the whole ring on every add and every removal, O(50&middot;N&sup2;)).
 *
 * <ul>
 *   <li>{@code github.com/serialx/hashring} @22c0c7ab6b1b: {@code hashring.go} ({@code
 *       NewWithWeights}, {@code generateCircle}, {@code GetNodePos}, {@code GetNodes}, {@code
 *       AddWeightedNode}, {@code RemoveNode}), {@code hash.go} ({@code NewHash(md5.New())}) and
 *       {@code key.go} ({@code Int64PairHashKey}).
 *   <li>{@code github.com/scientificideas/distributor}: {@code Distributor.PutToMatchingTable}.
 * </ul>
 *
 * Hashes come from {@link MessageDigest}, read here (not through {@code SeedRingAssigner.RingHash}). The only
 * additions are allot's documented capacity adaptation ({@code capacities}, null for none) and a
 * memo of key hashes (a pure function) so that the quadratic rebuilds stay affordable in tests.
 */
final class SeedRingOracle {
  private SeedRingOracle() {}

  /** The result: service -> units in collection order, and the units left on the ring. */
  record Result(Map<String, List<String>> table, List<String> leftOnRing) {
    /** Go's published hash values: units joined by ",". */
    Map<String, String> published() {
      Map<String, String> out = new LinkedHashMap<>();
      table.forEach((s, us) -> out.put(s, String.join(",", us)));
      return out;
    }
  }

  // ---------------------------------------------------------------- distributor.go

  /**
   * {@code PutToMatchingTable(services, ringMembers)}.
   *
   * @param capacities allot adaptation: a service with a capacity asks for at most that many
   *     units (0: none); null or a missing entry means no capacity
   */
  static Result putToMatchingTable(List<String> servicesIn, List<String> ringMembers, Map<String, Integer> capacities) {
    List<String> services = new ArrayList<>(servicesIn);
    HashFunc hf = new HashFunc();
    // ring := hashring.NewWithWeights(nil)
    HashRing ring = HashRing.newWithWeights(new HashMap<>(), hf);
    // for _, member := range ringMembers { ring = ring.AddWeightedNode(member, 50) }
    for (String member : ringMembers) {
      ring = ring.addWeightedNode(member, 50);
    }

    Map<String, List<String>> matchingTable = new LinkedHashMap<>();
    // itemsCountPerMember := len(ringMembers) / len(services)
    int itemsCountPerMember = ringMembers.size() / services.size();
    if (itemsCountPerMember < 1) {
      itemsCountPerMember = 1;
    }

    // sort.Strings(services)
    services.sort(SeedRingOracle::goStringCompare);
    for (int i = 0; i < services.size(); i++) {
      String service = services.get(i);
      if (i == services.size() - 1 && ringMembers.size() > services.size()) {
        itemsCountPerMember = itemsCountPerMember + ringMembers.size() % services.size();
      }
      int size = itemsCountPerMember;
      // --- allot adaptation: capacity (not in the original) ---
      Integer cap = capacities == null ? null : capacities.get(service);
      if (cap != null && size > cap) {
        size = cap;
      }
      GetNodesResult r;
      if (size == 0) {
        r = new GetNodesResult(null, false); // adaptation: capacity 0 asks for nothing
      } else {
        // --- end of adaptation ---
        r = ring.getNodes(service, size);
      }
      List<String> matchingMembers = r.nodes == null ? List.of() : r.nodes;
      // rm member from hash ring to avoid duplication
      for (String member : matchingMembers) {
        ring = ring.removeNode(member);
      }
      matchingTable.put(service, matchingMembers);
    }
    return new Result(matchingTable, new ArrayList<>(ring.nodes));
  }

  /** Go string comparison: bytewise on UTF-8. */
  static int goStringCompare(String a, String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  // ---------------------------------------------------------------- key.go

  /** {@code Int64PairHashKey}; identity matters (Go uses pointers as map keys). */
  static final class HashKey {
    final long high;
    final long low;

    HashKey(long high, long low) {
      this.high = high;
      this.low = low;
    }

    boolean less(HashKey o) {
      if (high < o.high) {
        return true;
      }
      return high == o.high && low < o.low;
    }

    /** {@code NewInt64PairHashKey(bytes)}. */
    static HashKey of(byte[] bytes) {
      if (bytes.length != 16) {
        throw new IllegalArgumentException("expected 16 bytes, got " + bytes.length + " bytes");
      }
      return new HashKey(littleEndian(bytes, 0), littleEndian(bytes, 8));
    }

    private static long littleEndian(byte[] b, int off) {
      long v = 0;
      for (int i = 7; i >= 0; i--) {
        v = (v << 8) | (b[off + i] & 0xff);
      }
      return v;
    }
  }

  // ---------------------------------------------------------------- hash.go

  /** {@code NewHash(md5.New()).Use(NewInt64PairHashKey)}, memoised by key. */
  static final class HashFunc {
    private final MessageDigest md5;
    private final Map<String, long[]> memo = new HashMap<>();

    HashFunc() {
      try {
        md5 = MessageDigest.getInstance("MD5");
      } catch (NoSuchAlgorithmException e) {
        throw new AssertionError(e);
      }
    }

    HashKey apply(String key) {
      long[] hl =
          memo.computeIfAbsent(
              key,
              k -> {
                md5.reset();
                md5.update(k.getBytes(StandardCharsets.UTF_8));
                HashKey h = HashKey.of(md5.digest());
                return new long[] {h.high, h.low};
              });
      return new HashKey(hl[0], hl[1]); // a fresh "pointer", as in Go
    }
  }

  // ---------------------------------------------------------------- hashring.go

  record GetNodesResult(List<String> nodes, boolean ok) {}

  static final class HashRing {
    Map<HashKey, String> ring;
    List<HashKey> sortedKeys;
    List<String> nodes;
    Map<String, Integer> weights;
    HashFunc hashFunc;

    static HashRing newWithWeights(Map<String, Integer> weights, HashFunc hashFunc) {
      List<String> nodes = new ArrayList<>(weights.keySet());
      return built(nodes, weights, hashFunc);
    }

    /** The ring of {@code nodes} with {@code weights}: Go's struct literal followed by {@code generateCircle()}. */
    private static HashRing built(List<String> nodes, Map<String, Integer> weights, HashFunc hashFunc) {
      HashRing hashRing = new HashRing();
      hashRing.ring = new IdentityHashMap<>();
      hashRing.sortedKeys = new ArrayList<>();
      hashRing.nodes = nodes;
      hashRing.weights = weights;
      hashRing.hashFunc = hashFunc;
      hashRing.generateCircle();
      return hashRing;
    }

    void generateCircle() {
      int totalWeight = 0;
      for (String node : nodes) {
        Integer weight = weights.get(node);
        if (weight != null) {
          totalWeight += weight;
        } else {
          totalWeight += 1;
          weights.put(node, 1);
        }
      }

      for (String node : nodes) {
        int weight = weights.get(node);
        for (int j = 0; j < weight; j++) {
          String nodeKey = node + "-" + Long.toString(j, 10);
          HashKey key = hashFunc.apply(nodeKey);
          ring.put(key, node);
          sortedKeys.add(key);
        }
      }

      // sort.Sort(HashKeyOrder(h.sortedKeys))
      sortedKeys.sort((x, y) -> x.less(y) ? -1 : y.less(x) ? 1 : 0);
    }

    /** Returns {pos, ok}. */
    int[] getNodePos(String stringKey) {
      if (ring.isEmpty()) {
        return new int[] {0, 0};
      }
      HashKey key = genKey(stringKey);
      List<HashKey> nodes = sortedKeys;
      int pos = search(nodes.size(), i -> key.less(nodes.get(i)));
      if (pos == nodes.size()) {
        // Wrap the search, should return First node
        return new int[] {0, 1};
      } else {
        return new int[] {pos, 1};
      }
    }

    HashKey genKey(String key) {
      return hashFunc.apply(key);
    }

    GetNodesResult getNodes(String stringKey, int size) {
      int[] posOk = getNodePos(stringKey);
      int pos = posOk[0];
      if (posOk[1] == 0) {
        return new GetNodesResult(null, false);
      }

      if (size > nodes.size()) {
        return new GetNodesResult(null, false);
      }

      Map<String, Boolean> returnedValues = new HashMap<>(size);
      List<String> resultSlice = new ArrayList<>(size);

      for (int i = pos; i < pos + sortedKeys.size(); i++) {
        HashKey key = sortedKeys.get(i % sortedKeys.size());
        String val = ring.get(key);
        if (!returnedValues.getOrDefault(val, false)) {
          returnedValues.put(val, true);
          resultSlice.add(val);
        }
        if (returnedValues.size() == size) {
          break;
        }
      }

      return new GetNodesResult(resultSlice, resultSlice.size() == size);
    }

    HashRing addWeightedNode(String node, int weight) {
      if (weight <= 0) {
        return this;
      }
      if (weights.containsKey(node)) {
        return this;
      }
      List<String> nodes = new ArrayList<>(this.nodes);
      nodes.add(node);

      Map<String, Integer> weights = new HashMap<>(this.weights);
      weights.put(node, weight);

      return built(nodes, weights, hashFunc);
    }

    HashRing removeNode(String node) {
      // if node isn't exist in hashring, don't refresh hashring
      if (!weights.containsKey(node)) {
        return this;
      }
      List<String> nodes = new ArrayList<>();
      for (String eNode : this.nodes) {
        if (!eNode.equals(node)) {
          nodes.add(eNode);
        }
      }
      Map<String, Integer> weights = new HashMap<>();
      this.weights.forEach(
          (eNode, eWeight) -> {
            if (!eNode.equals(node)) {
              weights.put(eNode, eWeight);
            }
          });

      return built(nodes, weights, hashFunc);
    }
  }

  /** Go's {@code sort.Search}: the smallest i in [0, n) with f(i) true, or n. */
  static int search(int n, java.util.function.IntPredicate f) {
    int i = 0;
    int j = n;
    while (i < j) {
      int h = (i + j) >>> 1;
      if (!f.test(h)) {
        i = h + 1;
      } else {
        j = h;
      }
    }
    return i;
  }
}
