package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.fsm.ConstraintException;
import dev.leap.runtime.internal.model.LlamaModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One forward pass over the running batch and the sampling of its next tokens: which pending tokens
 * each sequence feeds ({@link #plan}), their KV slots, the model's logits, each constrained
 * sequence's mask, one token per sequence whose logits are its next token's. What the token does to
 * its sequence (constraint, stop checks, jumps, finishing) is {@link Decoding}'s and the scheduler's.
 *
 * <p>Chunked prefill (as vLLM and SGLang do it): a sequence with few pending tokens (a decode, a
 * short jump extension) is fed whole; longer ones (a prompt, a long jump) share a budget of
 * {@code prefillChunk} tokens per step, the fewest pending first. So a step's activations and attention
 * scores are bounded whatever the prompt length, and a long prefill runs interleaved with everyone
 * else's decode steps instead of freezing them. Scheduler thread only.
 */
final class ForwardStep {
  /** Sequences with at most this many pending tokens are fed whole, outside the prefill budget. */
  private static final int SHORT_PENDING = 64;

  /**
   * What the step did for one sequence it fed: a chunk of a longer prefill ({@code partial}: no
   * token), a sampled {@code token}, {@code -1} when the constraint allows no token, or the
   * constraint's {@code failure} (a grammar's work limit) that ends this request alone.
   */
  record Result(Sequence sequence, boolean partial, int token, String failure) {}

  private final LlamaModel model;
  private final KvLedger ledger;
  private final NDManager manager;
  private final int prefillChunk;
  private long passes;

  ForwardStep(LlamaModel model, KvLedger ledger, NDManager manager, int prefillChunk) {
    this.model = model;
    this.ledger = ledger;
    this.manager = manager;
    this.prefillChunk = prefillChunk;
  }

  /** Forward passes run so far. */
  long passes() {
    return passes;
  }

  /**
   * Runs one forward pass over {@code running} and samples. A sequence waiting for the prefill budget
   * is not fed and has no result. If the model fails, the slots allocated for this step are released
   * and the exception propagates.
   */
  List<Result> run(List<Sequence> running) {
    int[] feed = plan(running);
    List<Sequence> batch = new ArrayList<>(running.size());
    List<LlamaModel.SequenceInput> inputs = new ArrayList<>(running.size());
    List<int[]> newSlots = new ArrayList<>(running.size());
    for (int i = 0; i < feed.length; i++) {
      if (feed[i] == 0) {
        continue; // a long prefill waiting for the budget: it keeps its place
      }
      Sequence s = running.get(i);
      int[] slots = ledger.allocate(s, feed[i]);
      batch.add(s);
      newSlots.add(slots);
      inputs.add(new LlamaModel.SequenceInput(
          s.tokens(s.kvLen, feed[i]), s.kvLen, s.slots.elements(), slots, false)); // slots read, not copied
    }
    int b = batch.size();
    int[] chosen;
    boolean[] partial = new boolean[b];
    String[] failed = new String[b];
    try (NDManager stepManager = manager.newSubManager()) {
      NDArray logits;
      try {
        logits = model.forward(stepManager, inputs);
      } catch (RuntimeException e) {
        for (int i = 0; i < b; i++) {
          ledger.release(batch.get(i), newSlots.get(i));
        }
        throw e;
      }
      passes++;
      Sampler.Row[] rows = new Sampler.Row[b];
      for (int i = 0; i < b; i++) {
        Sequence s = batch.get(i);
        ledger.extend(s, newSlots.get(i));
        s.forwardPasses++;
        if (s.kvLen < s.length()) {
          partial[i] = true; // a chunk of a longer prefill: its logits are not the next token's
          continue;
        }
        NDArray mask = null;
        if (s.constraint != null) {
          try {
            if (s.constraint.allowedCount() == 0) {
              continue; // no row: no token can continue
            }
            mask = s.constraint.disallowedMask(stepManager);
          } catch (ConstraintException e) {
            failed[i] = e.getMessage(); // a grammar's work limit: this request ends, the batch goes on
            continue;
          }
        }
        rows[i] = new Sampler.Row(mask, s.request.params(), s.rng);
      }
      chosen = sampleRows(stepManager, logits, rows);
    }
    List<Result> out = new ArrayList<>(b);
    for (int i = 0; i < b; i++) {
      Sequence s = batch.get(i);
      if (s.treeOwned < s.prompt.length && s.kvLen >= s.prompt.length) {
        ledger.share(s, s.prompt.length); // others may reuse the prompt's K/V from now on
      }
      out.add(new Result(s, partial[i], chosen[i], failed[i]));
    }
    return out;
  }

  /**
   * How many of each running sequence's pending tokens (those without K/V yet) this step feeds:
   * short ones whole; long ones share the budget, the fewest pending first, so a short prompt that
   * arrives while a long one is prefilling is fed at once instead of after it (its time to first
   * token does not grow with the others' prompts).
   */
  private int[] plan(List<Sequence> running) {
    int b = running.size();
    int[] feed = new int[b];
    int whole = Math.min(prefillChunk, SHORT_PENDING);
    int budget = prefillChunk;
    long[] longOnes = new long[b]; // pending << 32 | index: sorted, the fewest pending first
    int longCount = 0;
    for (int i = 0; i < b; i++) {
      Sequence s = running.get(i);
      int pending = s.length() - s.kvLen;
      if (pending <= whole) {
        feed[i] = pending;
      } else {
        longOnes[longCount++] = ((long) pending << 32) | i;
      }
    }
    Arrays.sort(longOnes, 0, longCount);
    for (int k = 0; k < longCount; k++) {
      int i = (int) longOnes[k];
      int pending = (int) (longOnes[k] >>> 32);
      feed[i] = Math.min(pending, budget);
      budget -= feed[i];
    }
    return feed;
  }

  /** One token per row; {@code -1} where the row is null (nothing to sample). */
  private static int[] sampleRows(NDManager stepManager, NDArray logits, Sampler.Row[] rows) {
    int b = rows.length;
    int valid = 0;
    for (Sampler.Row r : rows) {
      valid += r == null ? 0 : 1;
    }
    int[] out = new int[b];
    if (valid == b) {
      return Sampler.sample(stepManager, logits, rows);
    }
    Arrays.fill(out, -1);
    if (valid == 0) {
      return out;
    }
    long[] keep = new long[valid];
    Sampler.Row[] kept = new Sampler.Row[valid];
    for (int i = 0, j = 0; i < b; i++) {
      if (rows[i] != null) {
        keep[j] = i;
        kept[j++] = rows[i];
      }
    }
    int[] got = Sampler.sample(stepManager, logits.get(stepManager.create(keep)), kept);
    for (int i = 0, j = 0; i < b; i++) {
      if (rows[i] != null) {
        out[i] = got[j++];
      }
    }
    return out;
  }
}
