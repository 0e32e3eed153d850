package io.allot.spring;

import io.allot.store.Store;
import io.allot.store.Stores;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The allot {@link Store} from {@code allot.store} (a URI, opened by {@link Stores#open(String)}: {@code memory:},
 * {@code redis://}, {@code rediss://}, {@code redis-cluster://}, {@code postgresql://}; the Redis and PostgreSQL
 * stores need {@code allot-store-redis} / {@code allot-store-postgres} on the class path). An application's own
 * {@code Store} bean wins; the store opened here is closed with the context, after every allot part stopped.
 */
@AutoConfiguration
@EnableConfigurationProperties(AllotProperties.class)
public class AllotStoreAutoConfiguration {

  /** The store at {@code allot.store}. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "allot", name = "store")
  public Store allotStore(AllotProperties properties) {
    return Stores.open(properties.store());
  }
}
