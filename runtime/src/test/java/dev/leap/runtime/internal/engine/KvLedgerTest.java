package dev.leap.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leap.radix.RadixCache;
import dev.leap.runtime.GenerationRequest;
import dev.leap.runtime.SamplingParams;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The KV ledger under seeded random scheduler-like operations without a model: admissions with
 * shared prompt prefixes (cache hits, evictions, requests that do not fit), steps that allocate the
 * pending tokens' slots, prompts shared into the radix cache, jump-like retractions (also of cached
 * positions), and finishes; {@link KvLedger#verify} (a full recount of slot ownership and
 * reservations) after every operation, and every slot back at the end.
 */
class KvLedgerTest {
  private static final byte[] NO_BYTES = new byte[0];

  static Sequence sequence(int[] prompt, int maxTokens) {
    Sequence s =
        new Sequence(
            GenerationRequest.ofIds(
                prompt, null, SamplingParams.builder().maxTokens(maxTokens).build()),
            new CompletableFuture<>(),
            0);
    s.prompt = prompt;
    return s;
  }

  @Test
  void randomOperationsKeepEverySlotAccountedFor() {
    int refusedTotal = 0;
    int cachedRecomputes = 0;
    for (long seed = 0; seed < 40; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      boolean prefixCache = seed % 4 != 0;
      int capacity = 64 + rnd.nextInt(200);
      KvLedger ledger = new KvLedger(capacity, prefixCache);
      List<Sequence> running = new ArrayList<>();
      int[][] bases = {
        rnd.ints(12, 0, 9).toArray(), rnd.ints(12, 0, 9).toArray(), rnd.ints(3, 0, 9).toArray()
      };
      int admitted = 0;
      int refused = 0;
      for (int op = 0; op < 400; op++) {
        String what = "seed " + seed + " op " + op;
        int kind = rnd.nextInt(10);
        if (kind < 3 || running.isEmpty()) {
          int[] base = bases[rnd.nextInt(bases.length)];
          int[] prompt = Arrays.copyOf(base, base.length + 1 + rnd.nextInt(6));
          for (int i = base.length; i < prompt.length; i++) {
            prompt[i] = rnd.nextInt(9);
          }
          Sequence s = sequence(prompt, 1 + rnd.nextInt(12));
          RadixCache.Match m = ledger.matchAndLock(prompt, prompt.length - 1);
          if (ledger.admit(s, m, prompt.length - m.length() + s.request.params().maxTokens())) {
            running.add(s);
            admitted++;
          } else {
            ledger.unlock(m);
            refused++;
          }
        } else {
          Sequence s = running.get(rnd.nextInt(running.size()));
          int out = s.output.tokenCount();
          if (kind < 6 && out < s.request.params().maxTokens()) {
            // A step: the pending tokens get K/V, then one token is sampled (the last sampled one,
            // the maxTokens-th, is never fed: the request ends).
            int pending = s.length() - s.kvLen;
            ledger.extend(s, ledger.allocate(s, pending));
            if (s.kvLen >= s.prompt.length && s.treeOwned < s.prompt.length && rnd.nextBoolean()) {
              ledger.share(s, s.prompt.length);
            }
            s.output.append(rnd.nextInt(9), NO_BYTES);
          } else if (kind < 8 && out < s.request.params().maxTokens()) {
            // A jump: retract some output tokens and append others (at most up to maxTokens).
            int keep = rnd.nextInt(out + 1);
            int from = s.prompt.length + keep;
            ledger.truncate(s, from);
            s.output.truncate(keep);
            int append = rnd.nextInt(s.request.params().maxTokens() - keep + 1);
            for (int i = 0; i < append; i++) {
              s.output.append(rnd.nextInt(9), NO_BYTES);
            }
            if (s.length() == s.kvLen) {
              cachedRecomputes += s.kvLen - 1 < s.treeOwned ? 1 : 0;
              // Everything has K/V but the last logits were dropped: run the last token again
              // (a cached prompt position when the whole output was retracted).
              ledger.truncate(s, s.kvLen - 1);
            }
            if (s.output.tokenCount() >= s.request.params().maxTokens()) {
              ledger.releaseAll(s); // the jump reached maxTokens: the request ends
              running.remove(s);
            }
          } else { // a finish
            ledger.releaseAll(s);
            running.remove(s);
          }
        }
        ledger.verify(running);
        assertEquals(capacity, ledger.capacity(), what);
      }
      for (Sequence s : running) {
        ledger.releaseAll(s);
      }
      ledger.verify(List.of());
      assertEquals(
          capacity, ledger.freeSlots() + ledger.cachedSlots(), "seed " + seed + ": slots leaked");
      assertTrue(admitted > 10, "seed " + seed + ": only " + admitted + " admissions");
      refusedTotal += refused;
    }
    assertTrue(refusedTotal > 0, "no admission was refused: the pool never filled");
    assertTrue(cachedRecomputes > 0, "no cached prompt position was run again");
  }

  @Test
  void verifyCatchesASlotHeldTwiceAndALeak() {
    KvLedger ledger = new KvLedger(16, false);
    Sequence a = sequence(new int[] {1, 2, 3}, 4);
    Sequence b = sequence(new int[] {4, 5, 6}, 4);
    RadixCache.Match none = ledger.matchAndLock(a.prompt, 2);
    assertTrue(ledger.admit(a, none, 7));
    assertTrue(ledger.admit(b, none, 7));
    int[] sa = ledger.allocate(a, 3);
    ledger.extend(a, sa);
    int[] sb = ledger.allocate(b, 3);
    ledger.extend(b, sb);
    ledger.verify(List.of(a, b));
    b.slots.set(0, sa[0]);
    IllegalStateException twice =
        assertThrows(IllegalStateException.class, () -> ledger.verify(List.of(a, b)));
    assertTrue(twice.getMessage().contains("two requests"), twice.getMessage());
    b.slots.set(0, sb[0]);
    IllegalStateException leak =
        assertThrows(IllegalStateException.class, () -> ledger.verify(List.of(a)));
    assertTrue(leak.getMessage().contains("leaked"), leak.getMessage());
  }
}
