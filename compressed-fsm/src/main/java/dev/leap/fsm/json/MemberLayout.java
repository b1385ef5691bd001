package dev.leap.fsm.json;

import static dev.leap.fsm.internal.Trees.NOTHING;
import static dev.leap.fsm.internal.Trees.alt;
import static dev.leap.fsm.internal.Trees.lit;
import static dev.leap.fsm.internal.Trees.opt;
import static dev.leap.fsm.internal.Trees.rep;
import static dev.leap.fsm.internal.Trees.seq;

import dev.leap.fsm.internal.Re;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes out an object's members after {@code "{"} as a choice per member (present or absent) where
 * that choice matters to the presence formula or the member count, and as an optional member where
 * it does not; ends with {@code "}"}. Memoized on (member, wrote one, formula, count).
 *
 * <p>The result is a DAG: the members after member {@code i} are one node, in tail position of both
 * choices, so the NFA builds them once (see {@link dev.leap.fsm.internal.Nfa}). Such a node is
 * therefore wrapped in a new {@link Re.Concat} and never flattened into its parent by {@link
 * dev.leap.fsm.internal.Trees#seq}, which would copy it. Member {@code i} itself is written once
 * per distinct continuation; {@link #cost} sums those copies' sizes, and past {@link #MAX_COST} no
 * more is written (the caller reports it).
 */
final class MemberLayout {
  /** Most member copies (in tree nodes) that one object's layout may write out. */
  static final long MAX_COST = 2_000_000;

  private final List<ObjectValues.Member> members;

  /**
   * {@code versions[i][v]}: member i (key and value) meeting the constraints of subset v of {@code
   * constraintIds[i]}.
   */
  private final Re[][] versions;

  /** The value constraints on member i, by number (as {@link Presence.Meets} refers to them). */
  private final int[][] constraintIds;

  /** {@code sizes[i][v]}: the size of {@code versions[i][v]}. */
  private final long[][] sizes;

  private final int minProps;
  private final int maxProps;

  /** What goes before the closing brace after a member (the layout's newline). */
  private final String close;

  /** Member counts are tracked up to this (beyond it, no bound distinguishes them). */
  private final int countCap;

  /** One member that no listed one names ({@link ExtraMembers}), or null. */
  private final Re extra;

  /** Whether some ending fell short of minProperties by more than one extra member. */
  private boolean minUnreachable;

  private final Map<String, Re> memo = new HashMap<>();

  /**
   * Per member i: the member (in the versions of a bitmask) followed by a continuation, by the
   * continuation (identity) and the bitmask; shared by "wrote one" and not.
   */
  private final List<Map<Re, Map<Integer, Re>>> withMember = new ArrayList<>();

  private long cost;

  MemberLayout(
      List<ObjectValues.Member> members,
      Re[][] versions,
      int[][] constraintIds,
      long[][] sizes,
      int minProps,
      int maxProps,
      String close,
      Re extra) {
    this.members = members;
    this.versions = versions;
    this.constraintIds = constraintIds;
    this.extra = extra;
    this.sizes = sizes;
    this.minProps = minProps;
    this.maxProps = maxProps;
    this.close = close;
    this.countCap = maxProps >= 0 ? maxProps + 1 : minProps;
    for (int i = 0; i < members.size(); i++) {
      withMember.add(new IdentityHashMap<>());
    }
  }

  /** Whether some ending fell short of minProperties by more than one extra member. */
  boolean minUnreachable() {
    return minUnreachable;
  }

  /** The member copies written so far, in tree nodes. */
  long cost() {
    return cost;
  }

  /**
   * The members from {@code i} on and the closing brace, given whether a member was written, the
   * residual formula {@code f} and the member count so far (capped); {@link
   * dev.leap.fsm.internal.Trees#NOTHING} if none can follow.
   */
  Re from(int i, boolean wrote, Presence f, int count) {
    String key = i + "|" + wrote + "|" + count + "|" + f;
    Re b = memo.get(key);
    if (b != null) {
      return b;
    }
    if (cost > MAX_COST) {
      return NOTHING;
    }
    if (i == members.size()) {
      b = f instanceof Presence.Const c && c.value() ? end(wrote, count) : NOTHING;
    } else {
      b = member(i, wrote, f, count);
    }
    memo.put(key, b);
    return b;
  }

  /** Member {@code i} present (in each version that leads somewhere) or absent, then the rest. */
  private Re member(int i, boolean wrote, Presence f, int count) {
    ObjectValues.Member m = members.get(i);
    int next = Math.min(count + 1, countCap);
    Presence fp = f.assign(m.name(), true);
    Presence fa = f.assign(m.name(), false);
    boolean canPresent = (maxProps < 0 || count < maxProps) && !fp.equals(Presence.FALSE);
    boolean canAbsent = !m.required() && !fa.equals(Presence.FALSE);
    Re absent = canAbsent ? from(i + 1, wrote, fa, count) : NOTHING;
    // Present: each version leads to the residual formula of the constraints it meets.
    List<Re> conts = new ArrayList<>();
    List<Integer> masks = new ArrayList<>();
    for (int v = 0; canPresent && v < versions[i].length; v++) {
      if (versions[i][v] == NOTHING) {
        continue;
      }
      Presence fv = fp;
      for (int k = 0; k < constraintIds[i].length; k++) {
        fv = fv.assignMeets(m.name(), constraintIds[i][k], (v >> k & 1) == 1);
      }
      Re cont = fv.equals(Presence.FALSE) ? NOTHING : from(i + 1, true, fv, next);
      if (cont == NOTHING) {
        continue;
      }
      int at = indexOfIdentity(conts, cont);
      if (at < 0) {
        conts.add(cont);
        masks.add(1 << v);
      } else {
        masks.set(at, masks.get(at) | 1 << v);
      }
    }
    if (versions[i].length == 1 && conts.size() == 1 && conts.get(0) == absent) {
      // The member is optional and nothing after it depends on it.
      cost += sizes[i][0];
      return new Re.Concat(
          List.of(opt(wrote ? seq(lit(","), versions[i][0]) : versions[i][0]), absent));
    }
    List<Re> options = new ArrayList<>();
    for (int c = 0; c < conts.size(); c++) {
      Re cont = conts.get(c);
      int mask = masks.get(c);
      Re after =
          withMember
              .get(i)
              .computeIfAbsent(cont, x -> new HashMap<>())
              .computeIfAbsent(
                  mask,
                  x -> {
                    List<Re> texts = new ArrayList<>();
                    for (int v = 0; v < versions[i].length; v++) {
                      if ((mask >> v & 1) == 1) {
                        texts.add(versions[i][v]);
                        cost += sizes[i][v];
                      }
                    }
                    return new Re.Concat(List.of(alt(texts), cont));
                  });
      options.add(wrote ? new Re.Concat(List.of(lit(","), after)) : after);
    }
    options.add(absent);
    return alt(options);
  }

  /**
   * The extra members (after the listed ones) and the closing brace, given whether a member was
   * written and how many (capped). A generated key may repeat an earlier extra key, so extra
   * members count only towards "at most n" and one of them towards "at least n".
   */
  private Re end(boolean wrote, int count) {
    int need = minProps - count;
    int room = maxProps < 0 ? -1 : maxProps - count;
    if (extra == null || room == 0) {
      return need <= 0 ? lit((wrote ? close : "") + "}") : NOTHING;
    }
    if (need > 1) {
      minUnreachable = true;
      return NOTHING;
    }
    int lo = Math.max(0, need);
    Re more = new Re.Concat(List.of(lit(","), extra));
    if (wrote) {
      return seq(rep(more, lo, room), lit(close + "}"));
    }
    Re some = seq(extra, rep(more, 0, room < 0 ? -1 : room - 1), lit(close + "}"));
    return lo == 0 ? alt(List.of(lit("}"), some)) : some;
  }

  private static int indexOfIdentity(List<Re> list, Re x) {
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i) == x) {
        return i;
      }
    }
    return -1;
  }
}
