package dev.leap.fsm.grammar;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.List;

/**
 * FOLLOW sets at byte level: for each compiled rule, the bytes that can come right after it
 * returns, in any caller (least fixed point: what the caller reads first after the call, where the
 * caller too may return at once, what follows the caller). Empty for {@code root} unless something
 * calls it: after the top-level root only the end of the text comes.
 *
 * <p>Used to keep the precomputed "uncertain" token sets small: a token that runs past the rule's
 * end can only survive if its next byte is in the rule's FOLLOW set.
 */
final class FollowBytes {
  private FollowBytes() {}

  /** Four words (a 256-bit set) per compiled rule. */
  static long[][] of(RuleAutomaton[] rules) {
    int n = rules.length;
    long[][] follow = new long[n][4];
    Stacks stacks = new Stacks(rules, Integer.MAX_VALUE, Integer.MAX_VALUE);
    IntArrayList out = new IntArrayList();
    // First bytes after each call edge (caller, target), and whether the caller may return at once.
    List<long[]> firsts = new ArrayList<>();
    IntArrayList callers = new IntArrayList();
    IntArrayList callees = new IntArrayList();
    IntArrayList endsToo = new IntArrayList();
    for (int c = 0; c < n; c++) {
      RuleAutomaton a = rules[c];
      for (int s = 0; s < a.stateCount(); s++) {
        for (int i = a.callStart[s]; i < a.callStart[s + 1]; i++) {
          int flags = stacks.close(stacks.frame(c, a.callTarget[i], Stacks.CONTEXT), out);
          long[] first = new long[4];
          for (int k = 0; k < out.size(); k++) {
            int f = out.getInt(k);
            RuleAutomaton fa = rules[stacks.rule(f)];
            int base = 4 * stacks.state(f);
            for (int w = 0; w < 4; w++) {
              first[w] |= fa.byteSets[base + w];
            }
          }
          firsts.add(first);
          callers.add(c);
          callees.add(a.callee[i]);
          endsToo.add((flags & Stacks.ENDS) != 0 ? 1 : 0);
        }
      }
    }
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int e = 0; e < firsts.size(); e++) {
        long[] target = follow[callees.getInt(e)];
        long[] first = firsts.get(e);
        long[] callerFollow = endsToo.getInt(e) != 0 ? follow[callers.getInt(e)] : null;
        for (int w = 0; w < 4; w++) {
          long add = first[w] | (callerFollow == null ? 0 : callerFollow[w]);
          if ((target[w] | add) != target[w]) {
            target[w] |= add;
            changed = true;
          }
        }
      }
    }
    return follow;
  }

  static boolean contains(long[] set, int b) {
    return (set[(b & 0xFF) >>> 6] & (1L << b)) != 0;
  }
}
