package io.allot.cli.dashboard;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's chromium driven by its chromium-driver (both installed by {@code .ci/run}), headless, nothing fetched:
 * the binaries are named, so Selenium Manager never looks for a browser or a driver to download.
 */
final class Chromium {
  static final Path BROWSER = Path.of("/usr/bin/chromium");
  static final Path DRIVER = Path.of("/usr/bin/chromedriver");

  private Chromium() {}

  /** A new headless browser; skips the test where chromium is not installed, except on CI, where it fails. */
  static ChromeDriver start() {
    boolean installed = Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
    if (!installed && "true".equals(System.getenv("CI"))) {
      throw new IllegalStateException("chromium and chromium-driver are missing: .ci/run installs them with apt-get");
    }
    assumeTrue(installed, "chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(BROWSER.toFile());
    options.addArguments(List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage", "--window-size=1400,1800"));
    options.setCapability("goog:loggingPrefs", Map.of("browser", "ALL"));
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
        .usingAnyFreePort().build();
    return new ChromeDriver(service, options);
  }
}
