package io.allot.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application outside this repository builds against the BOM and the starter after {@code ./mvnw install}: the
 * reactor installs the starter, a store and what they need into a repository of its own under {@code target/} (reading
 * the shared one as a fallback, writing nothing there), then a project in a temporary folder that imports
 * {@code allot-bom} and Spring Boot's BOM runs its own test, which starts a context with a job handler on the memory
 * store. Minutes on two cores, so only with {@code -Dallot.outside=true}.
 */
@EnabledIfSystemProperty(named = "allot.outside", matches = "true")
class OutsideProjectTest {
  static final Path REACTOR = Path.of("..").toAbsolutePath().normalize();
  static final Path LOCAL_REPO = Path.of("target/outside-m2").toAbsolutePath();
  static final String VERSION = "0.1.0-SNAPSHOT";
  static final String BOOT = "4.1.2";

  @Test
  void aProjectInATemporaryFolderBuildsAndStartsOnTheBomAndTheStarter(@TempDir Path dir) throws Exception {
    mvn(REACTOR, "install", "-DskipTests", "-pl", "allot-bom,allot-spring-boot-starter,allot-store-redis", "-am");
    Path test = dir.resolve("src/test/java/demo/DemoTest.java");
    Files.createDirectories(test.getParent());
    Files.writeString(dir.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>demo</groupId>
          <artifactId>demo</artifactId>
          <version>1</version>
          <properties>
            <maven.compiler.release>17</maven.compiler.release>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
          </properties>
          <dependencyManagement>
            <dependencies>
              <dependency>
                <groupId>io.allot</groupId><artifactId>allot-bom</artifactId><version>%s</version>
                <type>pom</type><scope>import</scope>
              </dependency>
              <dependency>
                <groupId>org.springframework.boot</groupId><artifactId>spring-boot-dependencies</artifactId>
                <version>%s</version><type>pom</type><scope>import</scope>
              </dependency>
            </dependencies>
          </dependencyManagement>
          <dependencies>
            <dependency><groupId>io.allot</groupId><artifactId>allot-spring-boot-starter</artifactId></dependency>
            <dependency><groupId>io.allot</groupId><artifactId>allot-store-redis</artifactId></dependency>
            <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter</artifactId></dependency>
            <dependency>
              <groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-test</artifactId>
              <scope>test</scope>
            </dependency>
          </dependencies>
          <build>
            <plugins>
              <plugin>
                <groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId>
                <version>3.5.4</version>
              </plugin>
            </plugins>
          </build>
        </project>
        """.formatted(VERSION, BOOT));
    Files.writeString(test, """
        package demo;

        import static org.assertj.core.api.Assertions.assertThat;

        import io.allot.jobs.JobHandler;
        import io.allot.spring.AllotJobWorkers;
        import org.junit.jupiter.api.Test;
        import org.springframework.beans.factory.annotation.Autowired;
        import org.springframework.boot.autoconfigure.SpringBootApplication;
        import org.springframework.boot.test.context.SpringBootTest;
        import org.springframework.context.annotation.Bean;

        @SpringBootTest(properties = "allot.store=memory:")
        class DemoTest {
          @SpringBootApplication
          static class App {
            @Bean
            JobHandler emails() {
              return job -> { };
            }
          }

          @Autowired AllotJobWorkers workers;

          @Test
          void theStarterRunsTheJobHandler() {
            assertThat(workers.queues()).containsEntry("emails", "emails");
          }
        }
        """);
    mvn(dir, "test");
    assertThat(dir.resolve("target/surefire-reports/TEST-demo.DemoTest.xml")).exists();
  }

  /** Runs the reactor's Maven wrapper in {@code dir} with the test's own local repository; fails on a non-zero exit. */
  static void mvn(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(REACTOR.resolve("mvnw").toString(), "-B", "-q",
        "-Dmaven.repo.local=" + LOCAL_REPO,
        "-Dmaven.repo.local.tail=" + System.getProperty("user.home") + "/.m2/repository"));
    cmd.addAll(List.of(args));
    Path log = Files.createTempFile("outside-mvn", ".log");
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    assertThat(p.waitFor(20, TimeUnit.MINUTES)).as("mvn %s finished", String.join(" ", args)).isTrue();
    assertThat(p.exitValue()).as("mvn %s in %s:%n%s", String.join(" ", args), dir, tail(log.toFile())).isZero();
  }

  static String tail(File log) throws IOException {
    List<String> lines = Files.readAllLines(log.toPath());
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }
}
