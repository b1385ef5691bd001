package dev.leap.fsm.grammar;

import dev.leap.fsm.Dfa;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.Arrays;

/**
 * The stack machine under a grammar: persistent, hash-consed stack frames and the byte step over a
 * set of stacks.
 *
 * <p>A <em>frame</em> is (compiled rule, state of its automaton, parent frame); a stack is its top
 * frame, linked down to the bottom. Frames are interned (one id per distinct triple), so equal
 * stacks are one id and stacks share their common tails. The parent of a bottom frame is {@link
 * #BOTTOM} (below root: the end of the text) or, when a rule is examined on its own before the
 * caller is known (the per-state token precomputation), {@link #CONTEXT}.
 *
 * <p>A <em>configuration</em> is a set of stacks, each closed under the moves that read no byte:
 * <em>call</em> (a call edge {@code s --k--> t} of the top replaces the top by {@code (rule, t)}
 * and pushes {@code (k, 0)}) and <em>return</em> (a top in an accepting state is popped; its parent
 * is the caller's frame already at the call's target). A configuration keeps only the stacks whose
 * top has a byte transition; whether some stack returned past {@link #BOTTOM} (the text may end) or
 * past {@link #CONTEXT} (the rule may end, the caller decides what follows) comes back as flags.
 * Closures terminate because the grammar has no left recursion (pushing without reading a byte
 * always stops) and frames already seen in the same closure are skipped.
 *
 * <p>Work limits, each a {@link GrammarLimitException} naming the limit: stack depth, and live
 * stacks in one configuration (ambiguous grammars). Not thread-safe (one per matcher, one for the
 * precomputation).
 */
final class Stacks {
  static final int BOTTOM = -1;
  static final int CONTEXT = -2;

  /** Flag: a stack returned past {@link #BOTTOM}: the text may end here. */
  static final int ACCEPT = 1;

  /** Flag: a stack returned past {@link #CONTEXT}: the examined rule may end here. */
  static final int ENDS = 2;

  final RuleAutomaton[] rules;
  final int[] nodeBase;
  private final int maxDepth;
  private final int maxStacks;

  private int[] fRule = new int[256];
  private int[] fState = new int[256];
  private int[] fParent = new int[256];
  private int[] fDepth = new int[256];
  private int[] seen = new int[256];
  private int frames;
  private int gen;
  private final Long2IntOpenHashMap ids = new Long2IntOpenHashMap();
  private final IntArrayList work = new IntArrayList();

  Stacks(RuleAutomaton[] rules, int maxDepth, int maxStacks) {
    this.rules = rules;
    this.maxDepth = maxDepth;
    this.maxStacks = maxStacks;
    this.nodeBase = new int[rules.length + 1];
    for (int k = 0; k < rules.length; k++) {
      nodeBase[k + 1] = nodeBase[k] + rules[k].stateCount();
    }
    ids.defaultReturnValue(-1);
  }

  /** Frames interned so far. */
  int frameCount() {
    return frames;
  }

  int rule(int frame) {
    return fRule[frame];
  }

  int state(int frame) {
    return fState[frame];
  }

  int parent(int frame) {
    return fParent[frame];
  }

  int depth(int frame) {
    return fDepth[frame];
  }

  /** The (rule, state) node of {@code frame}: {@code nodeBase[rule] + state}. */
  int node(int frame) {
    return nodeBase[fRule[frame]] + fState[frame];
  }

  /** The interned frame (rule, state, parent). */
  int frame(int rule, int state, int parent) {
    long key = ((long) (parent + 2) << 32) | (nodeBase[rule] + state);
    int id = ids.get(key);
    if (id >= 0) {
      return id;
    }
    int depth = parent < 0 ? 1 : fDepth[parent] + 1;
    if (depth > maxDepth) {
      throw new GrammarLimitException(
          "stack depth",
          maxDepth,
          "grammar stack depth limit of "
              + maxDepth
              + " frames reached calling rule \""
              + rules[rule].name
              + "\": the output nests too deeply");
    }
    if (frames == fRule.length) {
      int n = frames * 2;
      fRule = Arrays.copyOf(fRule, n);
      fState = Arrays.copyOf(fState, n);
      fParent = Arrays.copyOf(fParent, n);
      fDepth = Arrays.copyOf(fDepth, n);
      seen = Arrays.copyOf(seen, n);
    }
    id = frames++;
    fRule[id] = rule;
    fState[id] = state;
    fParent[id] = parent;
    fDepth[id] = depth;
    ids.put(key, id);
    return id;
  }

  /** Closes the single stack {@code frame} into {@code out} (cleared first); returns the flags. */
  int close(int frame, IntArrayList out) {
    out.clear();
    begin();
    visit(frame);
    int flags = drain(out);
    if (out.size() > 1) {
      Arrays.sort(out.elements(), 0, out.size());
    }
    return flags;
  }

  /**
   * Steps the stacks {@code src[0, n)} on byte {@code b} and closes the result into {@code out}
   * (cleared first, sorted); returns the flags. {@code out} empty with no flag: the byte is
   * rejected.
   */
  int step(int[] src, int n, int b, IntArrayList out) {
    out.clear();
    begin();
    for (int i = 0; i < n; i++) {
      int f = src[i];
      int t = rules[fRule[f]].step(fState[f], b);
      if (t != Dfa.DEAD) {
        visit(frame(fRule[f], t, fParent[f]));
      }
    }
    int flags = drain(out);
    if (out.size() > 1) {
      Arrays.sort(out.elements(), 0, out.size());
    }
    return flags;
  }

  private void begin() {
    gen++;
    if (gen == Integer.MAX_VALUE) {
      Arrays.fill(seen, 0);
      gen = 1;
    }
    work.clear();
  }

  private void visit(int f) {
    if (seen[f] != gen) {
      seen[f] = gen;
      work.add(f);
    }
  }

  private int drain(IntArrayList out) {
    int flags = 0;
    for (int i = 0; i < work.size(); i++) {
      int g = work.getInt(i);
      int r = fRule[g];
      int s = fState[g];
      RuleAutomaton a = rules[r];
      if (a.hasBytes(s)) {
        if (out.size() >= maxStacks) {
          throw new GrammarLimitException(
              "live stacks",
              maxStacks,
              "grammar ambiguity limit of "
                  + maxStacks
                  + " live stacks reached in rule \""
                  + a.name
                  + "\": the grammar allows too many parses of this text");
        }
        out.add(g);
      }
      if (a.isAccepting(s)) {
        int p = fParent[g];
        if (p == BOTTOM) {
          flags |= ACCEPT;
        } else if (p == CONTEXT) {
          flags |= ENDS;
        } else {
          visit(p);
        }
      }
      for (int c = a.callStart[s]; c < a.callStart[s + 1]; c++) {
        int ret = frame(r, a.callTarget[c], fParent[g]);
        visit(frame(a.callee[c], 0, ret));
      }
    }
    return flags;
  }
}
