package io.allot.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.allot.store.Store;
import io.allot.store.postgres.PostgresStore;
import io.allot.store.redis.RedisStore;
import io.allot.testkit.PostgresSchema;
import io.allot.testkit.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The store over the application's own DataSource or Lettuce RedisClient (real PostgreSQL in a schema of the test's
 * own, real Redis): the store uses the bean, and closing the context closes the store but not the bean (registered
 * here without a destroy method: the test owns it).
 */
class StoreReuseTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AllotStoreAutoConfiguration.class));
  private final PostgresSchema schema = PostgresSchema.create("spring_reuse");
  private final HikariDataSource dataSource = dataSource();
  private final RedisClient redisClient = RedisClient.create(RedisURI.create(TestServers.redisUri()));

  @AfterEach
  void closeAll() {
    dataSource.close();
    redisClient.shutdown();
    schema.close();
  }

  private static HikariDataSource dataSource() {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("the-application");
    hc.setJdbcUrl(PostgresSchema.serverJdbcUrl());
    hc.setMaximumPoolSize(8);
    return new HikariDataSource(hc);
  }

  private ApplicationContextRunner withDataSource() {
    return runner.withBean("dataSource", DataSource.class, () -> dataSource, bd -> bd.setDestroyMethodName(""));
  }

  @Test
  void theApplicationsDataSourceServesTheStoreAndOutlivesIt() {
    withDataSource().withPropertyValues("allot.store=" + schema.uri()).run(ctx -> {
      assertThat(ctx).hasNotFailed().hasSingleBean(Store.class).hasBean("allotStore");
      PostgresStore store = ctx.getBean(PostgresStore.class);
      assertThat(store.schema()).isEqualTo(schema.name());
      assertThat(store.clock().timeMillis()).isPositive();
      assertThat(dataSource.getHikariPoolMXBean().getActiveConnections()).isPositive(); // at least the LISTEN one
    });
    assertThat(dataSource.isClosed()).isFalse();
    assertThat(dataSource.getHikariPoolMXBean().getActiveConnections()).isZero();
  }

  @Test
  void withoutAllotStoreTheDataSourceIsUsedWithTheDefaultSchema() {
    withDataSource().run(ctx -> {
      assertThat(ctx).hasNotFailed();
      assertThat(ctx.getBean(PostgresStore.class).schema()).isEqualTo("allot");
    });
  }

  @Test
  void theApplicationsRedisClientServesTheStoreAndOutlivesIt() {
    runner.withBean("redisClient", RedisClient.class, () -> redisClient, bd -> bd.setDestroyMethodName(""))
        .withPropertyValues("allot.store=" + TestServers.redisUri()).run(ctx -> {
          assertThat(ctx).hasNotFailed().hasBean("allotStore");
          assertThat(ctx.getBean(Store.class)).isInstanceOf(RedisStore.class);
          assertThat(ctx.getBean(Store.class).clock().timeMillis()).isPositive();
        });
    try (var connection = redisClient.connect()) {
      assertThat(connection.sync().ping()).isEqualTo("PONG");
    }
  }

  @Test
  void anotherKindOfStoreOrReuseOffLeavesTheBeansAlone() {
    withDataSource().withPropertyValues("allot.store=memory:").run(ctx ->
        assertThat(ctx.getBean(Store.class)).isNotInstanceOf(PostgresStore.class));
    withDataSource().withPropertyValues("allot.store=" + schema.uri(), "allot.reuse-connections=false").run(ctx -> {
      assertThat(ctx.getBean(PostgresStore.class).schema()).isEqualTo(schema.name());
      assertThat(dataSource.getHikariPoolMXBean().getActiveConnections()).isZero();
    });
    runner.withBean("redisClient", RedisClient.class, () -> redisClient, bd -> bd.setDestroyMethodName(""))
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(Store.class));
  }
}
