package dev.leap.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leap.bench.BenchData;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The peers benchmark's prompts: counts, the waves' cycling through the names, the id order. */
class WorkloadTest {

  @Test
  void sheetsWavesAndTheTokenizedOrder() {
    List<String> names = BenchData.characterNames();
    // No long prompts and no documents: the tokenizer is not needed.
    Workload w = Workload.of(null, 3, List.of(), 0, 0, List.of(2, names.size() + 5));
    assertEquals(3, w.n());
    assertEquals(BenchData.characterPrompt(names.get(2)), w.prompts().get(2));
    assertEquals(GbnfPrinter.print(BenchData.characterRegex()), w.grammar());
    assertEquals(2, w.waves().size());
    assertEquals(2, w.waves().get(0).size());
    List<String> big = w.waves().get(1);
    assertEquals(names.size() + 5, big.size());
    assertEquals(big.get(4), big.get(names.size() + 4), "a wave cycles through the names");
    assertEquals(w.prompts(), w.tokenized());
    assertEquals(
        names.size(), Workload.of(null, 1000, List.of(), 0, 0, List.of()).n(), "one per name");
  }
}
