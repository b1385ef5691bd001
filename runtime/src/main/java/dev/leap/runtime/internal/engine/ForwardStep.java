package dev.leap.runtime.internal.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.leap.fsm.ConstraintException;
import dev.leap.model.LlamaModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * One forward pass over the running batch and the sampling of its next tokens: which pending tokens
 * each sequence feeds ({@link #plan}), their KV slots, the model's logits, each constrained
 * sequence's mask, one token per sequence whose logits are its next token's. What the token does to
 * its sequence (constraint, stop checks, jumps, finishing) is {@link Decoding}'s and the
 * scheduler's.
 *
 * <p>Chunked prefill (as vLLM and SGLang do it): a sequence with few pending tokens (a decode, a
 * short jump extension) is fed whole; longer ones (a prompt, a long jump) share a budget of {@code
 * prefillChunk} tokens per step, the fewest pending first. So a step's activations and attention
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
  private long sparseSteps;

  /**
   * Projection rows of recent allowed-token sets ({@link LlamaModel#headRows}), least recently used
   * first: a constraint's states come back step after step, so the gather is paid once per state.
   * Bounded by {@link #HEAD_CACHE_BYTES} and {@link #HEAD_CACHE_ENTRIES}.
   */
  private final LinkedHashMap<Key, Cached> headCache = new LinkedHashMap<>(16, 0.75f, true);

  private long headCacheBytes;
  static final long HEAD_CACHE_BYTES = 64L << 20;
  static final int HEAD_CACHE_ENTRIES = 256;

  /** An allowed-token set (bit set over token ids) as a map key. */
  private record Key(long[] words, int hash) {
    Key(long[] words) {
      this(words, Arrays.hashCode(words));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.hash == hash && Arrays.equals(k.words, words);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /**
   * Cached projection rows and the token id of each column; {@code wide}: the same rows in float32
   * (CPU copies), made when a step of 8+ rows first needs them.
   */
  private static final class Cached {
    final NDManager scope;
    final NDArray rows;
    final int[] ids;
    final long[] longIds;
    long bytes;
    NDArray wide;

    Cached(NDManager scope, NDArray rows, int[] ids, long[] longIds, long bytes) {
      this.scope = scope;
      this.rows = rows;
      this.ids = ids;
      this.longIds = longIds;
      this.bytes = bytes;
    }

    NDArray rows() {
      return rows;
    }

    int[] ids() {
      return ids;
    }

    long bytes() {
      return bytes;
    }

    NDManager scope() {
      return scope;
    }
  }

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

  /** Passes whose tokens were sampled from the allowed tokens' logits alone (tests, stats). */
  long sparseSteps() {
    return sparseSteps;
  }

  /**
   * The union of the sampled rows' allowed sets ({@code words} past the model's vocabulary
   * cleared), or null when it has more than {@code limit} tokens.
   */
  private long[] union(long[][] allowed, boolean[] sample, int limit) {
    int vocab = model.config().vocabSize();
    int len = 0;
    for (int i = 0; i < allowed.length; i++) {
      if (sample[i]) {
        len = Math.max(len, allowed[i].length);
      }
    }
    len = Math.min(len, (vocab + 63) >>> 6);
    long[] u = new long[len];
    for (int i = 0; i < allowed.length; i++) {
      if (sample[i]) {
        long[] w = allowed[i];
        for (int j = 0; j < Math.min(len, w.length); j++) {
          u[j] |= w[j];
        }
      }
    }
    if ((vocab & 63) != 0 && len == (vocab + 63) >>> 6) {
      u[len - 1] &= (1L << (vocab & 63)) - 1; // ids past the model's vocabulary are never sampled
    }
    int count = 0;
    for (long w : u) {
      count += Long.bitCount(w);
    }
    return count == 0 || count > limit ? null : u;
  }

  /**
   * Samples every row from the logits of the union's tokens alone: the other tokens are disallowed
   * in every row, so their -inf logits take no part in an argmax or a softmax; a row allowing less
   * than the union masks the rest of it. Ids are ascending in the union, so ties break toward the
   * lower id as over the whole vocabulary.
   */
  private int[] sampleSparse(
      NDManager stepManager,
      NDArray hidden,
      List<Sequence> batch,
      boolean[] sample,
      long[][] allowed,
      String[] failed,
      long[] union) {
    Cached c = headRows(union);
    int b0 = (int) hidden.getShape().get(0);
    if (c.wide == null && model.widensProduct(b0)) {
      c.wide = model.headRowsWide(c.scope, c.longIds);
      if (c.wide != null) {
        long more = (long) c.ids.length * model.config().hiddenSize() * 4;
        c.bytes += more;
        headCacheBytes += more;
      }
    }
    NDArray logits = model.logits(hidden, c.rows(), c.wide);
    int b = batch.size();
    Sampler.Row[] rows = new Sampler.Row[b];
    for (int i = 0; i < b; i++) {
      if (sample[i] && failed[i] == null) {
        Sequence s = batch.get(i);
        rows[i] = new Sampler.Row(null, s.request.params(), s.rng);
      }
    }
    return sampleAllowed(stepManager, logits, c.ids(), union, allowed, rows);
  }

  /**
   * One token id per row from {@code logits} {@code [rows, k]}, the logits of the tokens {@code
   * ids} (ascending: the bits of {@code union}) alone; a row allowing fewer tokens ({@code
   * allowed[i]}, a bit set) gets a mask over the rest of the union. {@code rows[i]} null: no token
   * ({@code -1}). Chooses what {@link Sampler#sample} would over the whole vocabulary with each
   * row's mask.
   */
  static int[] sampleAllowed(
      NDManager stepManager,
      NDArray logits,
      int[] ids,
      long[] union,
      long[][] allowed,
      Sampler.Row[] rows) {
    int b = rows.length;
    int k = ids.length;
    Sampler.Row[] masked = new Sampler.Row[b];
    for (int i = 0; i < b; i++) {
      if (rows[i] == null) {
        continue;
      }
      NDArray mask = null;
      if (!sameSet(allowed[i], union)) {
        boolean[] disallowed = new boolean[k];
        long[] w = allowed[i];
        for (int j = 0; j < k; j++) {
          int id = ids[j];
          disallowed[j] = (id >>> 6) >= w.length || (w[id >>> 6] & (1L << id)) == 0;
        }
        mask = stepManager.create(disallowed);
      }
      masked[i] = new Sampler.Row(mask, rows[i].params(), rows[i].rng());
    }
    int[] chosen = sampleRows(stepManager, logits, masked);
    for (int i = 0; i < b; i++) {
      if (chosen[i] >= 0) {
        chosen[i] = ids[chosen[i]];
      }
    }
    return chosen;
  }

  /**
   * Whether the bit set {@code w} holds exactly the tokens of {@code union} (w may be longer, with
   * zeros past it).
   */
  static boolean sameSet(long[] w, long[] union) {
    for (int j = 0; j < union.length; j++) {
      if ((j < w.length ? w[j] : 0) != union[j]) {
        return false;
      }
    }
    return true;
  }

  /** The projection rows of {@code union}'s tokens, from the cache or gathered (and cached). */
  private Cached headRows(long[] union) {
    Key key = new Key(union);
    Cached c = headCache.get(key);
    if (c != null) {
      return c;
    }
    int k = 0;
    for (long w : union) {
      k += Long.bitCount(w);
    }
    int[] ids = new int[k];
    long[] longIds = new long[k];
    int j = 0;
    for (int wi = 0; wi < union.length; wi++) {
      for (long bits = union[wi]; bits != 0; bits &= bits - 1) {
        ids[j] = (wi << 6) + Long.numberOfTrailingZeros(bits);
        longIds[j] = ids[j];
        j++;
      }
    }
    NDManager scope = manager.newSubManager();
    NDArray rows = model.headRows(scope, longIds);
    long bytes = (long) k * model.config().hiddenSize() * model.precision().width();
    c = new Cached(scope, rows, ids, longIds, bytes);
    headCache.put(key, c);
    headCacheBytes += bytes;
    var it = headCache.entrySet().iterator();
    while ((headCacheBytes > HEAD_CACHE_BYTES || headCache.size() > HEAD_CACHE_ENTRIES)
        && it.hasNext()) {
      Cached old = it.next().getValue();
      if (old == c) {
        break;
      }
      it.remove();
      headCacheBytes -= old.bytes();
      old.scope().close();
    }
    return c;
  }

  /**
   * Runs one forward pass over {@code running} and samples. A sequence waiting for the prefill
   * budget is not fed and has no result. If the model fails, the slots allocated for this step are
   * released and the exception propagates.
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
      inputs.add(
          new LlamaModel.SequenceInput(
              s.tokens(s.kvLen, feed[i]),
              s.kvLen,
              s.slots.elements(),
              slots,
              false)); // slots read, not copied
    }
    int b = batch.size();
    int[] chosen;
    boolean[] partial = new boolean[b];
    String[] failed = new String[b];
    try (NDManager stepManager = manager.newSubManager()) {
      NDArray hidden;
      try {
        hidden = model.hidden(stepManager, inputs);
      } catch (RuntimeException e) {
        for (int i = 0; i < b; i++) {
          ledger.release(batch.get(i), newSlots.get(i));
        }
        throw e;
      }
      passes++;
      boolean[] sample = new boolean[b];
      long[][] allowed = new long[b][];
      int limit = model.sparseLogitsLimit();
      boolean sparse = limit > 0;
      int sampled = 0;
      for (int i = 0; i < b; i++) {
        Sequence s = batch.get(i);
        ledger.extend(s, newSlots.get(i));
        s.forwardPasses++;
        if (s.kvLen < s.length()) {
          partial[i] = true; // a chunk of a longer prefill: its logits are not the next token's
          continue;
        }
        if (s.constraint != null) {
          try {
            int count = s.constraint.allowedCount();
            if (count == 0) {
              continue; // no row: no token can continue
            }
            if (sparse && count <= limit) {
              allowed[i] = s.constraint.allowedWords();
            } else {
              sparse = false;
            }
          } catch (ConstraintException e) {
            failed[i] =
                e.getMessage(); // a grammar's work limit: this request ends, the batch goes on
            continue;
          }
        } else {
          sparse = false;
        }
        sample[i] = true;
        sampled++;
      }
      long[] union = sparse && sampled > 0 ? union(allowed, sample, limit) : null;
      if (union != null) {
        chosen = sampleSparse(stepManager, hidden, batch, sample, allowed, failed, union);
      } else {
        NDArray logits = model.logits(hidden);
        Sampler.Row[] rows = new Sampler.Row[b];
        for (int i = 0; i < b; i++) {
          if (!sample[i]) {
            continue;
          }
          Sequence s = batch.get(i);
          NDArray mask = null;
          if (s.constraint != null) {
            try {
              mask = s.constraint.disallowedMask(stepManager);
            } catch (ConstraintException e) {
              failed[i] = e.getMessage();
              continue;
            }
          }
          rows[i] = new Sampler.Row(mask, s.request.params(), s.rng);
        }
        chosen = sampleRows(stepManager, logits, rows);
      }
      sparseSteps += union != null ? 1 : 0;
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
  static int[] sampleRows(NDManager stepManager, NDArray logits, Sampler.Row[] rows) {
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
