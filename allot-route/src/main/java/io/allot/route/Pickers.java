package io.allot.route;

import io.allot.core.hash.Hashing;
import io.grpc.LoadBalancer.PickResult;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.LoadBalancer.SubchannelPicker;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/** The pick strategies the allot policies are made of; every picker is immutable apart from its atomic counters. */
final class Pickers {
  private Pickers() {}

  /**
   * The most steps of a smooth weighted round-robin cycle times the backends: above it the weights are scaled down
   * (each kept at least 1), so building a picker stays below a few milliseconds.
   */
  static final long MAX_CYCLE_WORK = 4_000_000;

  /** The call's unit key: {@link AllotRouting#KEY} in the call options, else the {@code allot-key} header. */
  static String key(PickSubchannelArgs args) {
    String k = args.getCallOptions().getOption(AllotRouting.KEY);
    return k != null ? k : args.getHeaders().get(AllotRouting.KEY_HEADER);
  }

  /** The strategies a fallback may name. */
  enum Strategy {
    ROUND_ROBIN("round_robin"),
    WEIGHTED_ROUND_ROBIN("weighted_round_robin"),
    LEAST_REQUEST("least_request"),
    CONSISTENT_HASH("consistent_hash");

    final String configName;

    Strategy(String configName) {
      this.configName = configName;
    }

    SubchannelPicker picker(List<Backend> ready) {
      return switch (this) {
        case ROUND_ROBIN -> new RoundRobin(ready);
        case WEIGHTED_ROUND_ROBIN -> new Cycle(ready, ready.stream().mapToInt(b -> b.member.weight()).toArray());
        case LEAST_REQUEST -> new LeastRequest(ready, 2);
        case CONSISTENT_HASH -> new ConsistentHash(ready);
      };
    }
  }

  /** Plain round robin from a random start. */
  static final class RoundRobin extends SubchannelPicker {
    private final PickResult[] picks;
    private final AtomicInteger next = new AtomicInteger(ThreadLocalRandom.current().nextInt(1 << 20));

    RoundRobin(List<Backend> ready) {
      picks = ready.stream().map(b -> b.pick).toArray(PickResult[]::new);
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      return picks[Math.floorMod(next.getAndIncrement(), picks.length)];
    }
  }

  /**
   * Smooth weighted round robin (nginx): each step every backend's credit grows by its weight, the backend with the
   * most credit is picked and pays the total. The whole cycle (length: the sum of the weights over their gcd) is
   * computed once, so a pick is one atomic increment and an array read, and the sequence spreads each backend's
   * turns evenly: weights 5,1,1 give a a b a c a a, never a burst of five. A weight of 0 gets no turn, unless every
   * weight is 0 (then all count 1). Each picker starts at a random step, so clients do not move in lockstep.
   */
  static final class Cycle extends SubchannelPicker {
    private final PickResult[] sequence;
    private final AtomicInteger next;

    Cycle(List<Backend> ready, int[] weights) {
      int[] order = cycle(weights);
      sequence = new PickResult[order.length];
      for (int i = 0; i < order.length; i++) {
        sequence[i] = ready.get(order[i]).pick;
      }
      next = new AtomicInteger(ThreadLocalRandom.current().nextInt(sequence.length));
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      return sequence[Math.floorMod(next.getAndIncrement(), sequence.length)];
    }

    /** One smooth weighted round-robin cycle over indexes 0..n-1. */
    static int[] cycle(int[] weights) {
      int n = weights.length;
      long[] w = new long[n];
      boolean any = false;
      for (int i = 0; i < n; i++) {
        w[i] = Math.max(0, weights[i]);
        any |= w[i] > 0;
      }
      if (!any) {
        java.util.Arrays.fill(w, 1);
      }
      long g = 0;
      for (long x : w) {
        g = gcd(g, x);
      }
      long total = 0;
      for (int i = 0; i < n; i++) {
        w[i] /= g;
        total += w[i];
      }
      if (total * n > MAX_CYCLE_WORK) {
        double scale = (double) MAX_CYCLE_WORK / n / total;
        total = 0;
        for (int i = 0; i < n; i++) {
          if (w[i] > 0) {
            w[i] = Math.max(1, Math.round(w[i] * scale));
          }
          total += w[i];
        }
      }
      int[] out = new int[(int) total];
      long[] credit = new long[n];
      for (int step = 0; step < total; step++) {
        int best = -1;
        for (int i = 0; i < n; i++) {
          if (w[i] == 0) {
            continue;
          }
          credit[i] += w[i];
          if (best < 0 || credit[i] > credit[best]) {
            best = i;
          }
        }
        credit[best] -= total;
        out[step] = best;
      }
      return out;
    }

    private static long gcd(long a, long b) {
      while (b != 0) {
        long t = a % b;
        a = b;
        b = t;
      }
      return a;
    }
  }

  /**
   * Least request with power-of-d choices: {@code d} backends drawn at random (the first two always distinct), the
   * one with the fewest outstanding calls wins. Calls are counted from stream creation to close through the pick
   * result's stream tracer ({@link Backend#countedPick}).
   *
   * <p>Latency-aware (the default): the outstanding calls of each candidate are weighed by its moving average
   * latency, cost {@code (outstanding + 1) x latency}, so a backend that answers 100x slower needs 100x fewer calls
   * in flight to be picked: plain least request lets a slow backend hold as many calls as a fast one, and each of
   * them waits. A backend without a latency yet costs 0 (a new one is tried at once). A candidate that loses lets
   * its average decay by 1/1024, so a backend that stopped getting calls is tried again after a few thousand
   * comparisons and its average is refreshed: a slow backend that recovered gets traffic back. Without latency
   * awareness, equal counts are broken by the lower average.
   */
  static final class LeastRequest extends SubchannelPicker {
    private final Backend[] backends;
    private final int choices;
    private final boolean latencyAware;

    LeastRequest(List<Backend> ready, int choices) {
      this(ready, choices, true);
    }

    LeastRequest(List<Backend> ready, int choices, boolean latencyAware) {
      this.backends = ready.toArray(Backend[]::new);
      this.choices = choices;
      this.latencyAware = latencyAware;
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      int n = backends.length;
      if (n == 1) {
        return backends[0].countedPick;
      }
      ThreadLocalRandom r = ThreadLocalRandom.current();
      int first = r.nextInt(n);
      Backend best = backends[first];
      for (int c = 1; c < choices; c++) {
        int i = r.nextInt(n - 1);
        if (i >= first) {
          i++; // never the first one again: two distinct candidates (more may repeat)
        }
        Backend b = backends[i];
        if (latencyAware ? cheaper(b, best) : fewer(b, best)) {
          lose(best);
          best = b;
        } else {
          lose(b);
        }
      }
      return best.countedPick;
    }

    private static boolean fewer(Backend a, Backend b) {
      int la = a.inFlight.get();
      int lb = b.inFlight.get();
      return la < lb || (la == lb && a.latencyNanos < b.latencyNanos);
    }

    private static boolean cheaper(Backend a, Backend b) {
      long ca = (a.inFlight.get() + 1L) * a.latencyNanos;
      long cb = (b.inFlight.get() + 1L) * b.latencyNanos;
      return ca < cb || (ca == cb && a.inFlight.get() < b.inFlight.get());
    }

    private void lose(Backend b) {
      if (latencyAware) {
        long avg = b.latencyNanos;
        if (avg > 1024) {
          b.latencyNanos = avg - (avg >> 10);
        }
      }
    }
  }

  /**
   * Weighted rendezvous hashing of the call key over the READY backends (score {@code -w / ln U}, the core's
   * formula, U from the key's and the member id's hashes): a key stays on its backend while that backend is READY,
   * and only the keys of a backend that leaves move. A call without a key goes round robin.
   */
  static final class ConsistentHash extends SubchannelPicker {
    private final Rendezvous rendezvous;
    private final RoundRobin keyless;

    ConsistentHash(List<Backend> ready) {
      this.rendezvous = new Rendezvous(ready.toArray(Backend[]::new));
      this.keyless = new RoundRobin(ready);
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      String key = key(args);
      if (key == null) {
        return keyless.pickSubchannel(args);
      }
      return rendezvous.pick(Rendezvous.keyHash(key)).pick;
    }
  }

  /**
   * The weighted rendezvous winner of a key over a fixed set of backends. A key is first hashed ({@link #keyHash}) to
   * one of
   * {@value #SLOTS} slots, and the slot is what the backends compete for: the winner of each slot is computed once
   * per picker, on first use, so a pick is a hash and an array read whatever the number of backends; a backend that
   * leaves still moves only its own slots, one that joins takes only the slots it now wins. Backends of equal weight
   * are compared by their raw pair hash (the score {@code -w / ln U} grows with U, and U with the hash's top 53
   * bits): one 64-bit mix per backend and one logarithm per distinct weight. Weight 0 backends are left out unless
   * every weight is 0 (then all count 1). Thread-safe: the slot cache is written racily with immutable values, so
   * a thread at worst computes a slot again.
   */
  static final class Rendezvous {
    /** Slots per picker. */
    static final int SLOTS = 1 << 16;

    private final Backend[] backends; // grouped by weight
    /** Slot to winner, filled on first use (benign races: every writer writes the same value). */
    private final Backend[] slots = new Backend[SLOTS];
    private final long[] idHashes;
    private final int[] groupEnd; // backends[groupEnd[g-1]..groupEnd[g]) have weight groupWeight[g]
    private final int[] groupWeight;

    Rendezvous(Backend[] all) {
      boolean anyWeight = false;
      for (Backend b : all) {
        anyWeight |= b.member.weight() > 0;
      }
      java.util.TreeMap<Integer, List<Backend>> byWeight = new java.util.TreeMap<>();
      for (Backend b : all) {
        int w = anyWeight ? b.member.weight() : 1;
        if (w > 0) {
          byWeight.computeIfAbsent(w, x -> new java.util.ArrayList<>()).add(b);
        }
      }
      backends = new Backend[byWeight.values().stream().mapToInt(List::size).sum()];
      idHashes = new long[backends.length];
      groupEnd = new int[byWeight.size()];
      groupWeight = new int[byWeight.size()];
      int i = 0;
      int g = 0;
      for (java.util.Map.Entry<Integer, List<Backend>> e : byWeight.entrySet()) {
        for (Backend b : e.getValue()) {
          idHashes[i] = b.member.idHash();
          backends[i++] = b;
        }
        groupEnd[g] = i;
        groupWeight[g++] = e.getKey();
      }
    }

    /**
     * The hash a key is routed by: {@link String#hashCode()} (specified by Java, so the same in every JVM, and cached
     * in the string) spread by {@link Hashing#mix64}.
     */
    static long keyHash(String key) {
      return Hashing.mix64(key.hashCode());
    }

    /** The slot of a key hash: its top 16 bits. */
    static int slot(long keyHash) {
      return (int) (keyHash >>> 48);
    }

    /** The hash the backends' scores are computed from for {@code slot}. */
    static long slotHash(int slot) {
      return Hashing.mix64(slot ^ 0x9e3779b97f4a7c15L);
    }

    /** The winner for a key of hash {@code keyHash} ({@link #keyHash}). */
    Backend pick(long keyHash) {
      int slot = slot(keyHash);
      Backend b = slots[slot];
      if (b == null) {
        b = winner(slotHash(slot));
        slots[slot] = b;
      }
      return b;
    }

    /** The winner for a slot hash. */
    Backend winner(long keyHash) {
      if (groupEnd.length == 1) {
        return backends[argMax(keyHash, 0, backends.length)];
      }
      Backend best = null;
      double bestScore = Double.NEGATIVE_INFINITY;
      int from = 0;
      for (int g = 0; g < groupEnd.length; g++) {
        int i = argMax(keyHash, from, groupEnd[g]);
        double u = Hashing.unitInterval(Hashing.mix64(keyHash ^ idHashes[i]));
        double score = -groupWeight[g] / Math.log(u);
        if (score > bestScore) {
          bestScore = score;
          best = backends[i];
        }
        from = groupEnd[g];
      }
      return best;
    }

    private int argMax(long keyHash, int from, int to) {
      int best = from;
      long bestX = Hashing.mix64(keyHash ^ idHashes[from]) >>> 11;
      for (int i = from + 1; i < to; i++) {
        long x = Hashing.mix64(keyHash ^ idHashes[i]) >>> 11;
        if (x > bestX) {
          bestX = x;
          best = i;
        }
      }
      return best;
    }
  }
}
