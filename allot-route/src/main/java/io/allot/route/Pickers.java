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
   * Least request with power-of-d choices: {@code d} backends drawn at random (distinct when there are enough), the
   * one with the fewest outstanding calls wins. Calls are counted from stream creation to close through the pick
   * result's stream tracer ({@link Backend#countedPick}).
   */
  static final class LeastRequest extends SubchannelPicker {
    private final Backend[] backends;
    private final int choices;

    LeastRequest(List<Backend> ready, int choices) {
      this.backends = ready.toArray(Backend[]::new);
      this.choices = choices;
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
      int bestLoad = best.inFlight.get();
      for (int c = 1; c < choices; c++) {
        int i = r.nextInt(n - 1);
        if (i >= first) {
          i++; // never the first one again: two distinct candidates (more may repeat)
        }
        Backend b = backends[i];
        int load = b.inFlight.get();
        if (load < bestLoad) {
          best = b;
          bestLoad = load;
        }
      }
      return best.countedPick;
    }
  }

  /**
   * Weighted rendezvous hashing of the call key over the READY backends (score {@code -w / ln U}, the core's
   * formula, U from the key's and the member id's hashes): a key stays on its backend while that backend is READY,
   * and only the keys of a backend that leaves move. A call without a key goes round robin.
   */
  static final class ConsistentHash extends SubchannelPicker {
    private final Backend[] backends;
    private final RoundRobin keyless;

    ConsistentHash(List<Backend> ready) {
      this.backends = ready.toArray(Backend[]::new);
      this.keyless = new RoundRobin(ready);
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      String key = key(args);
      if (key == null) {
        return keyless.pickSubchannel(args);
      }
      return rendezvous(backends, Hashing.hash64(key)).pick;
    }
  }

  /** The backend of highest weighted rendezvous score for a key hash; weight 0 only if all are 0. */
  static Backend rendezvous(Backend[] backends, long keyHash) {
    Backend best = null;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (Backend b : backends) {
      Backend.Member m = b.member;
      int w = m.weight();
      if (w == 0) {
        continue;
      }
      double u = Hashing.unitInterval(Hashing.mix64(keyHash ^ m.idHash()));
      double score = -w / Math.log(u);
      if (score > bestScore) {
        bestScore = score;
        best = b;
      }
    }
    if (best == null) { // every weight 0: unweighted
      for (Backend b : backends) {
        double u = Hashing.unitInterval(Hashing.mix64(keyHash ^ b.member.idHash()));
        double score = -1 / Math.log(u);
        if (score > bestScore) {
          bestScore = score;
          best = b;
        }
      }
    }
    return best;
  }
}
