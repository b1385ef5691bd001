package dev.leap.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.retokenize.HfTokenizer;
import dev.leap.train.data.City;
import dev.leap.train.data.Curriculum;
import dev.leap.train.data.Example;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CopyLossTest {
  @Test
  void firstTokensOfValuesGetTheirOwnWeightOnTopOfTheValueWeight() {
    HfTokenizer tok = SmallTokenizer.get();
    SplittableRandom r = new SplittableRandom(11);
    List<Example> ex = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ex.add(Curriculum.card(tok, City.open(r.nextInt(100_000)), r));
    }
    int rows = 0;
    int values = 0;
    int firsts = 0;
    int longest = 0;
    for (Example e : ex) {
      rows += e.tokens().length - 1;
      values += e.valueTargets().length;
      firsts += CopyLoss.firstValueTokens(e);
      longest = Math.max(longest, e.tokens().length);
    }
    // A card's answer holds all seven fields, each starting once.
    assertEquals(7 * ex.size(), firsts);
    assertTrue(values > firsts, "some value spans more than one token");
    float valueWeight = 1.5f;
    float firstWeight = 2f;
    TrainingStep.Terms t =
        CopyLoss.loss(rows, values, valueWeight, firsts, firstWeight).terms(ex, longest);
    TrainingStep.Terms plain = CopyLoss.loss(rows, values, valueWeight).terms(ex, longest);
    double total = 0;
    double plainTotal = 0;
    int raised = 0;
    for (int i = 0; i < t.weights().length; i++) {
      total += t.weights()[i];
      plainTotal += plain.weights()[i];
      if (t.weights()[i] > plain.weights()[i]) {
        raised++;
        assertEquals(firstWeight / firsts, t.weights()[i] - plain.weights()[i], 1e-6);
      }
    }
    // Every row weighs 1 / rows, value rows valueWeight / values more, first rows firstWeight /
    // firsts more: the step's weights sum to 1 + valueWeight + firstWeight.
    assertEquals(1 + valueWeight, plainTotal, 1e-4);
    assertEquals(1 + valueWeight + firstWeight, total, 1e-4);
    assertEquals(firsts, raised);
  }

  @Test
  void aValueStartsAtTheAnswersFirstValueTokenAndAfterEachGapOrNewField() {
    Example e =
        new Example(
            new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
            2,
            new int[0],
            new int[] {3, 4, 6, 7, 8},
            new int[] {0, 0, 1, 2, 2});
    boolean[] first = new boolean[5];
    for (int v = 0; v < 5; v++) {
      first[v] = CopyLoss.isFirst(e, v);
    }
    // 3 starts field 0, 4 continues it, 6 starts field 1 (after a gap), 7 starts field 2 (right
    // after field 1's token), 8 continues field 2.
    assertEquals(List.of(true, false, true, true, false), asList(first));
    assertEquals(3, CopyLoss.firstValueTokens(e));
  }

  private static List<Boolean> asList(boolean[] b) {
    List<Boolean> l = new ArrayList<>();
    for (boolean x : b) {
      l.add(x);
    }
    return l;
  }
}
