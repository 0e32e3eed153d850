package io.allot.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the releaser cuts the confirmed runs into store calls. */
class ReleaserTest {

  @Test
  void batchesHoldAtMostBatchRunsAndEachUnitOnceInOrder() {
    List<Reconciler.Owned> runs = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      runs.add(new Reconciler.Owned("u" + i, i));
    }
    Reconciler.Owned again = new Reconciler.Owned("u3", 1000); // a later run of u3, confirmed too
    runs.add(4, again);

    List<List<Reconciler.Owned>> batches = Releaser.batches(runs);

    assertThat(batches).extracting(List::size).containsExactly(Releaser.BATCH, Releaser.BATCH, 601 - 2 * Releaser.BATCH);
    assertThat(batches.get(0)).doesNotContain(again).startsWith(runs.get(0), runs.get(1), runs.get(2), runs.get(3),
        runs.get(5));
    assertThat(batches.get(1)).startsWith(again);
    assertThat(batches.stream().flatMap(List::stream)).containsExactlyInAnyOrderElementsOf(runs);
    for (List<Reconciler.Owned> b : batches) {
      assertThat(b).extracting(o -> o.unit).doesNotHaveDuplicates();
    }
    assertThat(Releaser.batches(List.of())).isEmpty();
  }
}
