package io.allot.store.redis;

import io.allot.store.Notifications;
import io.allot.store.Subscription;
import io.allot.store.Topic;
import io.allot.store.spi.ChannelListeners;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Notifications} on Redis pub/sub. A topic is its {@link Topic#channel()}; {@link Topic.Kind#KEY} topics
 * also listen to the key's keyspace channel {@code __keyspace@<db>__:<key>} (db: the configured database), which
 * carries the key's changes when the server has keyspace notifications on ({@code notify-keyspace-events Kl}), e.g.
 * an original-style service's own {@code LPUSH}. In Cluster, keyspace notifications stay on the node that holds the
 * key, so keyspace channels are subscribed on every master known at subscription time; other channels are
 * cluster-wide.
 *
 * <p>One pub/sub connection, opened on the first subscription; Lettuce re-subscribes after a reconnect. Local
 * fan-out and ordered delivery on one thread: {@link ChannelListeners}.
 */
final class RedisNotifications implements Notifications {
  private static final Logger log = LoggerFactory.getLogger(RedisNotifications.class);

  private final RedisConnection redis;
  private final String keyspacePrefix;
  private final ChannelListeners listeners;
  private final Object lock = new Object();
  private StatefulRedisPubSubConnection<String, String> pubSub; // guarded by lock

  RedisNotifications(RedisConnection redis) {
    this.redis = redis;
    this.keyspacePrefix = "__keyspace@" + redis.config().database() + "__:";
    this.listeners = new ChannelListeners("allot-redis-notify", new ChannelListeners.Hooks() {
      @Override
      public void firstListener(String channel) {
        subscribe(channel, true);
      }

      @Override
      public void lastListenerGone(String channel) {
        subscribe(channel, false);
      }
    });
  }

  @Override
  public Subscription subscribe(Topic topic, Consumer<String> listener) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(listener, "listener");
    redis.checkOpen();
    Subscription main = listeners.add(topic.channel(), listener);
    if (topic.kind() != Topic.Kind.KEY) {
      return main;
    }
    try {
      Subscription keyspace = listeners.add(keyspacePrefix + topic.name(), listener);
      return () -> {
        main.close();
        keyspace.close();
      };
    } catch (RuntimeException e) {
      main.close();
      throw e;
    }
  }

  @Override
  public void publish(Topic topic, String message) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(message, "message");
    String channel = topic.channel();
    redis.call("PUBLISH " + channel, r -> r.publish(channel, message));
  }

  /** Stops delivery and closes the pub/sub connection. */
  void close() {
    listeners.close();
    synchronized (lock) {
      if (pubSub != null) {
        RedisConnection.closeQuietly(pubSub);
      }
    }
  }

  /** (UN)SUBSCRIBE {@code channel}: keyspace channels in Cluster on every master. Called under the listeners' lock. */
  private void subscribe(String channel, boolean on) {
    String op = (on ? "SUBSCRIBE " : "UNSUBSCRIBE ") + channel;
    try {
      redis.call(op, r -> {
        StatefulRedisPubSubConnection<String, String> ps = pubSub();
        if (ps instanceof StatefulRedisClusterPubSubConnection<String, String> cps && channel.startsWith("__keyspace@")) {
          var masters = cps.sync().upstream().commands(); // each call waits for every master
          if (on) {
            masters.subscribe(channel);
          } else {
            masters.unsubscribe(channel);
          }
        } else if (on) {
          ps.sync().subscribe(channel);
        } else {
          ps.sync().unsubscribe(channel);
        }
        return null;
      });
    } catch (RuntimeException e) {
      if (on) {
        throw e;
      }
      // no local listener is left, so stray messages are dropped; Lettuce may re-subscribe after a reconnect
      log.debug("{} on {} failed: {}", op, redis.where(), e.toString());
    }
  }

  private StatefulRedisPubSubConnection<String, String> pubSub() {
    synchronized (lock) {
      if (pubSub == null) {
        StatefulRedisPubSubConnection<String, String> ps = redis.connectPubSub();
        ps.addListener(new RedisPubSubAdapter<>() {
          @Override
          public void message(String channel, String message) {
            listeners.dispatch(channel, message); // on a Lettuce I/O thread: hands over at once
          }
        });
        if (ps instanceof StatefulRedisClusterPubSubConnection<String, String> cps) {
          cps.setNodeMessagePropagation(true); // messages of the per-master keyspace subscriptions
        }
        pubSub = ps;
      }
      return pubSub;
    }
  }
}
