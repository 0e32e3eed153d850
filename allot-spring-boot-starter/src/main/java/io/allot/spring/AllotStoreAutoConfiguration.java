package io.allot.spring;

import io.allot.store.Store;
import io.allot.store.Stores;
import io.allot.store.metrics.StoreMeters;
import io.allot.store.postgres.PostgresStore;
import io.allot.store.postgres.PostgresUrl;
import io.allot.store.redis.RedisStore;
import io.allot.store.redis.RedisStoreConfig;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The allot {@link Store}, first match wins:
 * <ol>
 *   <li>the application's own {@code Store} bean;</li>
 *   <li>with {@code allot-store-postgres}, the application's {@link DataSource} (one, or a primary) when
 *       {@code allot.store} is unset or a {@code postgresql://} URI (its {@code allot_schema}, {@code allot_guard},
 *       {@code allot_clock_margin} then apply; its address is the DataSource's): {@link PostgresStore#connect(
 *       DataSource, java.util.function.UnaryOperator)};</li>
 *   <li>with {@code allot-store-redis}, the application's Lettuce {@link RedisClient} when {@code allot.store} is a
 *       {@code redis://} or {@code rediss://} URI (a client does not tell where it points: the URI does):
 *       {@link RedisStore#connect(RedisClient, RedisStoreConfig)};</li>
 *   <li>{@code allot.store} opened by {@link Stores#open(String)}: {@code memory:}, {@code redis://},
 *       {@code rediss://}, {@code redis-cluster://}, {@code postgresql://}.</li>
 * </ol>
 * {@code allot.reuse-connections=false} skips 2 and 3. The store is closed with the context, after every allot part
 * stopped; a reused DataSource or RedisClient is left to its owner. With a (single or primary) {@link MeterRegistry}
 * bean, the store allot opens is metered ({@link StoreMeters#wrap}: {@code allot.store.round.trip},
 * {@code allot.store.unavailable}, {@code allot.store.reconnects}); the application's own Store bean is left as it is.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@EnableConfigurationProperties(AllotProperties.class)
@Import({AllotStoreAutoConfiguration.FromDataSource.class, AllotStoreAutoConfiguration.FromRedisClient.class})
public class AllotStoreAutoConfiguration {

  /** The store at {@code allot.store}. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "allot", name = "store")
  public Store allotStore(AllotProperties properties, ObjectProvider<MeterRegistry> meters) {
    return metered(Stores.open(properties.store()), meters);
  }

  /** {@code store} metered into the application's registry, if it has one; else {@code store}. */
  static Store metered(Store store, ObjectProvider<MeterRegistry> meters) {
    MeterRegistry registry = meters.getIfUnique();
    return registry == null ? store : StoreMeters.wrap(store, registry);
  }

  /** The PostgreSQL store over the application's DataSource. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.allot.store.postgres.PostgresStore")
  @ConditionalOnProperty(prefix = "allot", name = "reuse-connections", matchIfMissing = true)
  static class FromDataSource {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(Store.class)
    @ConditionalOnSingleCandidate(DataSource.class)
    @Conditional(StoreKind.PostgresOrUnset.class)
    Store allotStore(DataSource dataSource, AllotProperties properties, ObjectProvider<MeterRegistry> meters) {
      PostgresUrl url = properties.store() == null ? null : PostgresUrl.parse(properties.store());
      return metered(PostgresStore.connect(dataSource, b -> {
        if (url != null) {
          Members.set(url.schema(), b::schema);
          Members.set(url.guard(), b::lostStateGuard);
          Members.set(url.clockMargin(), b::clockMargin);
        }
        return b;
      }), meters);
    }
  }

  /** The Redis store through the application's Lettuce client. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.allot.store.redis.RedisStore", "io.lettuce.core.RedisClient"})
  @ConditionalOnProperty(prefix = "allot", name = "reuse-connections", matchIfMissing = true)
  static class FromRedisClient {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(Store.class)
    @ConditionalOnSingleCandidate(RedisClient.class)
    @Conditional(StoreKind.Redis.class)
    Store allotStore(RedisClient client, AllotProperties properties, ObjectProvider<MeterRegistry> meters) {
      return metered(RedisStore.connect(client, RedisStoreConfig.fromUri(properties.store())), meters);
    }
  }
}
