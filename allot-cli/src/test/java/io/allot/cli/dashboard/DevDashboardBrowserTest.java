package io.allot.cli.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.allot.cli.dev.DevNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real browser (headless chromium) against a running {@code bin/allot dev} (issue 19): its three
 * pools and their members, its chaos moving units with the events to show it, its long-running tasks, its job queue
 * with a failure retried from the page, and its canary weights changed from the page. The screenshot in the README
 * is made here ({@code -Dallot.ui.screenshot=PATH}).
 */
class DevDashboardBrowserTest {
  static final Duration WAIT = Duration.ofSeconds(120); // a loaded 2-core machine; dev's chaos cycles its members
  static final DevNames NAMES = DevProcess.NAMES;
  static ChromeDriver browser;
  static DevProcess dev;

  @RegisterExtension final ScreenshotOnFailure screenshots = new ScreenshotOnFailure(() -> browser);

  @BeforeAll
  static void start() throws Exception {
    browser = Chromium.start();
    dev = new DevProcess("2s");
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) {
      browser.quit();
    }
    if (dev != null) {
      dev.close();
      Files.createDirectories(ScreenshotOnFailure.DIR); // what dev printed, beside the screenshots of failures
      Files.writeString(ScreenshotOnFailure.DIR.resolve("DevDashboardBrowserTest-dev.log"), dev.log());
    }
  }

  @BeforeEach
  void openThePage() {
    browser.manage().logs().get(LogType.BROWSER); // read: what earlier tests logged is not this test's
    browser.get(dev.url("/ui"));
    waitFor().until(d -> "true".equals(d.findElement(By.tagName("body")).getAttribute("data-ready")));
  }

  static WebDriverWait waitFor() {
    WebDriverWait w = new WebDriverWait(browser, WAIT, Duration.ofMillis(200));
    w.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
    w.ignoring(org.openqa.selenium.NoSuchElementException.class);
    return w;
  }

  static ConditionFactory await() {
    return Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).ignoreExceptions();
  }

  List<WebElement> all(String css) {
    return browser.findElements(By.cssSelector(css));
  }

  String text(String css) {
    return browser.findElement(By.cssSelector(css)).getText();
  }

  void click(String css) {
    waitFor().until(d -> {
      WebElement e = d.findElement(By.cssSelector(css));
      try {
        e.click();
      } catch (org.openqa.selenium.ElementClickInterceptedException covered) {
        ((JavascriptExecutor) d).executeScript("arguments[0].click()", e); // under the sticky header
      }
      return true;
    });
  }

  /** Shows {@code pool} in the page's per-pool sections. */
  void selectPool(String pool) {
    waitFor().until(d -> {
      new Select(d.findElement(By.id("pool-select"))).selectByValue(pool);
      return true;
    });
  }

  @Test
  void thePageLoadsWithoutConsoleErrorsAndShowsDevsPoolsAndMembers() {
    for (String pool : NAMES.pools()) {
      waitFor().until(d -> !all("[data-testid=pool-row][data-pool='" + pool + "']").isEmpty());
    }
    selectPool(NAMES.demoPool()); // ping-only demo members: judged by pings, no lease
    waitFor().until(d -> all("[data-testid=member-row][data-up=true]").size() >= 2
        && text("#members-table").contains("by pings"));
    selectPool(NAMES.workerPool()); // worker-SDK members: a lease, a version, a zone, a label
    waitFor().until(d -> all("[data-testid=member-row][data-up=true] .lease-countdown").size() >= 2
        && text("#members-table").contains("role=dev-worker") && text("#members-table").contains("zone-a"));
    assertThat(text("#members-table")).contains("v1");
    selectPool(NAMES.taskPool()); // the task members
    waitFor().until(d -> all("[data-testid=member-row][data-up=true]").size() >= 1
        && text("#members-table").contains("10 /")); // capacity / used
    List<LogEntry> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()).toList();
    assertThat(errors).as("console errors").isEmpty();
  }

  @Test
  void devsChaosVisiblyMovesUnitsAndItsEventsAppear() {
    selectPool(NAMES.workerPool());
    waitFor().until(d -> all("[data-testid=unit-row]").size() == 12
        && all("[data-testid=unit-row][data-member='']").isEmpty());
    // read in one wait: the page re-renders the rows live, so a row found may be stale by its attribute's read
    Map<String, String> before = waitFor().until(d -> {
      Map<String, String> m = new HashMap<>();
      all("[data-testid=unit-row]").forEach(e -> m.put(e.getAttribute("data-unit"), e.getAttribute("data-member")));
      return m.size() == 12 ? m : null;
    });
    // the chaos stops (and later restarts) a worker: some unit shows another member, without a reload
    waitFor().until(d -> all("[data-testid=unit-row]").stream().anyMatch(e -> {
      String m = e.getAttribute("data-member");
      String was = before.get(e.getAttribute("data-unit"));
      return was != null && !m.isEmpty() && !m.equals(was);
    }));
    String pool = "[data-pool='" + NAMES.workerPool() + "']";
    waitFor().until(d -> !all("[data-testid=event-row][data-kind=member-down]" + pool).isEmpty()
        || !all("[data-testid=event-row][data-kind=table-published]" + pool).isEmpty());
  }

  @Test
  void devsLongRunningTasksAreListedProcessing() {
    selectPool(NAMES.taskPool());
    waitFor().until(d -> all("[data-testid=task-row]").size() == 4);
    for (String task : List.of("ticker.BTC-USD", "ticker.ETH-USD", "crawl.example.org", "tenant.acme")) {
      String row = "[data-testid=task-row][data-task='" + task + "']";
      waitFor().until(d -> "Processing".equals(d.findElement(By.cssSelector(row)).getAttribute("data-status")));
    }
  }

  @Test
  void devsJobQueueShowsCountsAndAFailureRetriedFromThePage() throws Exception {
    String queueRow = "[data-testid=queue-row][data-queue='" + NAMES.queue() + "']";
    waitFor().until(d -> Long.parseLong(text(queueRow + " [data-testid=queue-todo]")) >= 0
        && text(queueRow).matches("(?s).*\\d.*"));
    click(queueRow + " a");
    // the bounce job fails every attempt and ends ignored: among the failures with its error
    String bounce = "[data-testid=failure-row][data-key$='-bounce']";
    waitFor().until(d -> text(bounce).contains("550 mailbox unavailable"));
    String key = waitFor().until(d -> d.findElement(By.cssSelector(bounce)).getAttribute("data-key"));
    String stats = "/api/v1/queues/" + NAMES.queue();
    await().until(() -> dev.get(stats).body().replace(" ", "").contains("\"key\":\"" + key + "\",\"attempts\":2"));
    click(bounce + " [data-testid=job-retry]");
    waitFor().until(d -> text("#message").equals("retry job " + key + ": done"));
    // retried: its attempts start again from 0, so the worker's next failure shows one attempt (or none yet)
    AtomicBoolean retried = new AtomicBoolean();
    await().until(() -> {
      String body = dev.get(stats).body().replace(" ", "");
      retried.set(!body.contains("\"key\":\"" + key + "\",\"attempts\":2"));
      return retried.get();
    });
    assertThat(retried).isTrue();
  }

  @Test
  void aCanaryWeightOfTheWorkerPoolIsChangedFromThePage() throws Exception {
    selectPool(NAMES.workerPool());
    String v2 = "[data-testid=weight-row][data-key='v2'] [data-testid=weight-input]";
    waitFor().until(d -> "10".equals(d.findElement(By.cssSelector(v2)).getAttribute("value"))
        && "90".equals(d.findElement(By.cssSelector("[data-testid=weight-row][data-key='v1'] [data-testid=weight-input]"))
        .getAttribute("value")));
    // again if the live page re-rendered the field meanwhile (a stale element)
    waitFor().until(d -> {
      WebElement input = d.findElement(By.cssSelector(v2));
      input.clear();
      input.sendKeys("25");
      return "25".equals(d.findElement(By.cssSelector(v2)).getAttribute("value"));
    });
    click("#weights-save");
    String weights = "/api/v1/pools/" + NAMES.workerPool() + "/weights";
    await().until(() -> dev.get(weights).body().replace(" ", "").contains("\"v2\":25"));
    waitFor().until(d -> "25".equals(d.findElement(By.cssSelector(v2)).getAttribute("value")));
  }

  /** How many pixels of the queue chart its lines colour (not the white ground nor the light frame). */
  long chartPixels() {
    Object n = ((JavascriptExecutor) browser).executeScript(
        "const c = document.getElementById('queue-chart'); const p = c.getContext('2d')"
        + ".getImageData(0, 0, c.width, c.height).data; let n = 0;"
        + "for (let i = 0; i < p.length; i += 4) { if (p[i + 3] > 0 && p[i] < 200) n++; } return n;");
    return ((Number) n).longValue();
  }

  /** With {@code -Dallot.ui.screenshot=PATH} (docs/images/dashboard.png), writes the page as the README shows it. */
  @Test
  void screenshotForTheDocs() throws Exception {
    String path = System.getProperty("allot.ui.screenshot");
    assumeTrue(path != null && !path.isBlank(), "no -Dallot.ui.screenshot=PATH given");
    selectPool(NAMES.workerPool());
    waitFor().until(d -> all("[data-testid=member-row][data-up=true]").size() >= 2
        && all("[data-testid=unit-row]").size() == 12 && all("[data-testid=unit-row][data-member='']").isEmpty()
        && !all("[data-testid=event-row]").isEmpty() && !all("[data-testid=queue-row]").isEmpty());
    waitFor().until(d -> chartPixels() > 200); // the queue's chart has lines (two polls or more)
    Path given = Path.of(path);
    Path out = given.isAbsolute() ? given : Path.of("..").resolve(given).normalize(); // relative: to the repository
    Files.createDirectories(out.getParent());
    Files.write(out, browser.getScreenshotAs(OutputType.BYTES));
    assertThat(Files.size(out)).isPositive();
  }
}
