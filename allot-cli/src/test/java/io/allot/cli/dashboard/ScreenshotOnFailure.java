package io.allot.cli.dashboard;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;

/**
 * When a test fails, saves what the browser showed under {@code target/dashboard-failures/}: a screenshot and the
 * page's HTML, named by class and test. Register it with {@code @RegisterExtension} and the browser of the test.
 */
final class ScreenshotOnFailure implements AfterTestExecutionCallback {
  static final Path DIR = Path.of("target", "dashboard-failures");
  private final Supplier<WebDriver> browser;

  ScreenshotOnFailure(Supplier<WebDriver> browser) {
    this.browser = browser;
  }

  @Override
  public void afterTestExecution(ExtensionContext context) throws IOException {
    WebDriver driver = browser.get();
    if (driver == null || context.getExecutionException().isEmpty()
        || context.getExecutionException().get() instanceof org.opentest4j.TestAbortedException) {
      return;
    }
    String name = context.getRequiredTestClass().getSimpleName() + "-" + context.getRequiredTestMethod().getName();
    Files.createDirectories(DIR);
    try {
      Files.write(DIR.resolve(name + ".png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
      Files.writeString(DIR.resolve(name + ".html"), driver.getPageSource(), StandardCharsets.UTF_8);
      System.err.println("dashboard test failed: screenshot " + DIR.resolve(name + ".png").toAbsolutePath());
    } catch (RuntimeException e) {
      System.err.println("dashboard test failed; no screenshot: " + e);
    }
  }
}
