package dev.leap.fsm.grammar;

import dev.leap.fsm.internal.Re;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The naive twin of the grammar engine: a plain Earley recognizer over bytes, written from the
 * textbook (predict, scan, complete; nullable nonterminals advanced at prediction, after Aycock and
 * Horspool). The grammar's syntax tree (as {@link GbnfParser} writes it) is turned into plain BNF
 * (an alternative or a repetition becomes a fresh nonterminal; {@code x{2,4}} is {@code x x O2}
 * with {@code O2 -> | x O1}, {@code x*} is {@code S -> | S x}). A literal's character (a
 * one-code-point set) is its UTF-8 bytes; any other character set is one terminal read over several
 * bytes: the item keeps the bytes read so far and checks, by decoding, whether some code point of
 * the class starts with them. No automaton, no stack sharing: nothing of the engine.
 */
final class EarleyTwin {
  /**
   * A symbol: a nonterminal (>= 0), a byte terminal (-1 - b), or a class terminal (CLASS_BASE - i).
   */
  private static final int CLASS_BASE = -1000;

  private final List<int[]> prodLhs = new ArrayList<>(); // [lhs]
  private final List<int[]> prodRhs = new ArrayList<>();
  private final List<List<Integer>> prodsOf = new ArrayList<>();
  private final List<int[]> classes = new ArrayList<>();
  private final Map<String, Integer> ruleIds = new HashMap<>();
  private boolean[] nullable;
  private final int start;

  EarleyTwin(List<GbnfParser.Rule> rules) {
    for (GbnfParser.Rule r : rules) {
      ruleIds.put(r.name(), newNonterminal());
    }
    for (GbnfParser.Rule r : rules) {
      addProd(ruleIds.get(r.name()), symbols(r.body()));
    }
    start = newNonterminal();
    addProd(start, new int[] {ruleIds.get("root")});
    computeNullable();
  }

  static EarleyTwin of(String gbnf) {
    return new EarleyTwin(GbnfParser.parse(gbnf));
  }

  private int newNonterminal() {
    prodsOf.add(new ArrayList<>());
    return prodsOf.size() - 1;
  }

  private void addProd(int lhs, int[] rhs) {
    prodsOf.get(lhs).add(prodRhs.size());
    prodLhs.add(new int[] {lhs});
    prodRhs.add(rhs);
  }

  private int[] symbols(Re e) {
    List<Integer> out = new ArrayList<>();
    append(e, out);
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  private void append(Re e, List<Integer> out) {
    if (e instanceof Re.Empty) {
      return;
    } else if (e instanceof Re.Chars c
        && c.ranges().length == 2
        && c.ranges()[0] == c.ranges()[1]) {
      // One code point (a literal's character): its UTF-8 bytes.
      for (byte b : new String(Character.toChars(c.ranges()[0])).getBytes(StandardCharsets.UTF_8)) {
        out.add(-1 - (b & 0xFF));
      }
    } else if (e instanceof Re.Chars c) {
      classes.add(c.ranges());
      out.add(CLASS_BASE - (classes.size() - 1));
    } else if (e instanceof Re.Call r) {
      out.add(ruleIds.get(r.name()));
    } else if (e instanceof Re.Concat s) {
      s.items().forEach(x -> append(x, out));
    } else if (e instanceof Re.Alt a) {
      int n = newNonterminal();
      for (Re x : a.options()) {
        addProd(n, symbols(x));
      }
      out.add(n);
    } else if (e instanceof Re.Repeat r) {
      for (int i = 0; i < r.min(); i++) {
        append(r.item(), out);
      }
      if (r.max() < 0) {
        // Left-recursive (S -> | S x): Earley completes those without walking back a chain per
        // byte.
        int s = newNonterminal();
        addProd(s, new int[0]);
        List<Integer> rhs = new ArrayList<>();
        rhs.add(s);
        append(r.item(), rhs);
        addProd(s, rhs.stream().mapToInt(Integer::intValue).toArray());
        out.add(s);
      } else {
        int prev = -1;
        for (int k = 1; k <= r.max() - r.min(); k++) {
          int o = newNonterminal();
          addProd(o, new int[0]);
          List<Integer> rhs = new ArrayList<>();
          append(r.item(), rhs);
          if (prev >= 0) {
            rhs.add(prev);
          }
          addProd(o, rhs.stream().mapToInt(Integer::intValue).toArray());
          prev = o;
        }
        if (prev >= 0) {
          out.add(prev);
        }
      }
    } else {
      throw new IllegalArgumentException("no GBNF parser writes " + e);
    }
  }

  private void computeNullable() {
    nullable = new boolean[prodsOf.size()];
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int p = 0; p < prodRhs.size(); p++) {
        int lhs = prodLhs.get(p)[0];
        if (nullable[lhs]) {
          continue;
        }
        boolean all = true;
        for (int sym : prodRhs.get(p)) {
          if (sym < 0 || !nullable[sym]) {
            all = false;
            break;
          }
        }
        if (all) {
          nullable[lhs] = true;
          changed = true;
        }
      }
    }
  }

  /**
   * An Earley item; {@code partial} holds the bytes of a class terminal read so far (count in the
   * top byte).
   */
  record Item(int prod, int dot, int origin, int partial) {}

  /** The chart: one item set per position. */
  final class Chart {
    final List<Set<Item>> sets = new ArrayList<>();

    Chart copy() {
      Chart c = new Chart();
      c.sets.addAll(sets);
      return c;
    }

    /** Whether the bytes so far are a prefix of the language (some item survived the last byte). */
    boolean alive() {
      return !sets.get(sets.size() - 1).isEmpty();
    }

    boolean accepts() {
      for (Item it : sets.get(sets.size() - 1)) {
        if (prodLhs.get(it.prod)[0] == start && it.dot == 1 && it.origin == 0) {
          return true;
        }
      }
      return false;
    }

    /** Reads one byte (only while alive). */
    void feed(int b) {
      Set<Item> last = sets.get(sets.size() - 1);
      Set<Item> next = new LinkedHashSet<>();
      for (Item it : last) {
        int[] rhs = prodRhs.get(it.prod);
        if (it.dot >= rhs.length) {
          continue;
        }
        int sym = rhs[it.dot];
        if (sym < 0 && sym > CLASS_BASE) {
          if (-1 - sym == b) {
            next.add(new Item(it.prod, it.dot + 1, it.origin, 0));
          }
        } else if (sym <= CLASS_BASE) {
          int[] cls = classes.get(CLASS_BASE - sym);
          int count = it.partial >>> 24;
          byte[] bytes = new byte[count + 1];
          for (int i = 0; i < count; i++) {
            bytes[i] = (byte) (it.partial >>> (8 * (2 - i)));
          }
          bytes[count] = (byte) b;
          int status = classStatus(cls, bytes);
          if (status == 2) {
            next.add(new Item(it.prod, it.dot + 1, it.origin, 0));
          } else if (status == 1) {
            int p = (count + 1) << 24;
            for (int i = 0; i <= count; i++) {
              p |= (bytes[i] & 0xFF) << (8 * (2 - i));
            }
            next.add(new Item(it.prod, it.dot, it.origin, p));
          }
        }
      }
      sets.add(next);
      close(sets.size() - 1);
    }

    private void close(int pos) {
      Set<Item> set = sets.get(pos);
      List<Item> work = new ArrayList<>(set);
      for (int i = 0; i < work.size(); i++) {
        Item it = work.get(i);
        if (it.partial != 0) {
          continue;
        }
        int[] rhs = prodRhs.get(it.prod);
        if (it.dot < rhs.length) {
          int sym = rhs[it.dot];
          if (sym >= 0) {
            for (int p : prodsOf.get(sym)) {
              add(set, work, new Item(p, 0, pos, 0));
            }
            if (nullable[sym]) {
              add(set, work, new Item(it.prod, it.dot + 1, it.origin, 0));
            }
          }
        } else {
          int lhs = prodLhs.get(it.prod)[0];
          if (it.origin != pos) {
            // An earlier set, no longer changing.
            for (Item parent : sets.get(it.origin)) {
              int[] prhs = prodRhs.get(parent.prod);
              if (parent.partial == 0 && parent.dot < prhs.length && prhs[parent.dot] == lhs) {
                add(set, work, new Item(parent.prod, parent.dot + 1, parent.origin, 0));
              }
            }
          } else {
            // Completing in the same set: items added to it later are handled when they are
            // processed.
            for (int k = 0; k < work.size(); k++) {
              Item parent = work.get(k);
              int[] prhs = prodRhs.get(parent.prod);
              if (parent.partial == 0 && parent.dot < prhs.length && prhs[parent.dot] == lhs) {
                add(set, work, new Item(parent.prod, parent.dot + 1, parent.origin, 0));
              }
            }
          }
        }
      }
    }

    private void add(Set<Item> set, List<Item> work, Item it) {
      if (set.add(it)) {
        work.add(it);
      }
    }
  }

  Chart begin() {
    Chart c = new Chart();
    Set<Item> first = new LinkedHashSet<>();
    first.add(new Item(prodsOf.get(start).get(0), 0, 0, 0));
    c.sets.add(first);
    c.close(0);
    return c;
  }

  /** The chart after {@code bytes}, or null once dead. */
  Chart walk(Chart from, byte[] bytes) {
    Chart c = from.copy();
    for (byte b : bytes) {
      c.feed(b & 0xFF);
      if (!c.alive()) {
        return null;
      }
    }
    return c;
  }

  boolean matches(byte[] bytes) {
    Chart c = walk(begin(), bytes);
    return c != null && c.accepts();
  }

  /**
   * For a class and bytes read: 2 when they are exactly one code point of the class, 1 when they
   * start one, 0 otherwise. Decided by decoding: an L-byte sequence with lead {@code bytes[0]}
   * covers the code points from the prefix padded with {@code 80} bytes to the prefix padded with
   * {@code BF} bytes; the class must meet that interval within the code points of length L.
   */
  static int classStatus(int[] cls, byte[] bytes) {
    int lead = bytes[0] & 0xFF;
    int len;
    int min;
    if (lead < 0x80) {
      len = 1;
      min = 0;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      len = 2;
      min = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      len = 3;
      min = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      len = 4;
      min = 0x10000;
    } else {
      return 0;
    }
    if (bytes.length > len) {
      return 0;
    }
    for (int i = 1; i < bytes.length; i++) {
      if ((bytes[i] & 0xC0) != 0x80) {
        return 0;
      }
    }
    int lo = decode(bytes, len, 0x80);
    int hi = decode(bytes, len, 0xBF);
    lo = Math.max(lo, min);
    hi = Math.min(hi, 0x10FFFF);
    for (int i = 0; i < cls.length; i += 2) {
      int a = Math.max(lo, cls[i]);
      int z = Math.min(hi, cls[i + 1]);
      if (a <= z && !(a >= 0xD800 && z <= 0xDFFF)) {
        return bytes.length == len ? 2 : 1;
      }
    }
    return 0;
  }

  private static int decode(byte[] bytes, int len, int pad) {
    int[] b = new int[len];
    for (int i = 0; i < len; i++) {
      b[i] = i < bytes.length ? bytes[i] & 0xFF : pad;
    }
    switch (len) {
      case 1:
        return b[0];
      case 2:
        return ((b[0] & 0x1F) << 6) | (b[1] & 0x3F);
      case 3:
        return ((b[0] & 0x0F) << 12) | ((b[1] & 0x3F) << 6) | (b[2] & 0x3F);
      default:
        return ((b[0] & 0x07) << 18) | ((b[1] & 0x3F) << 12) | ((b[2] & 0x3F) << 6) | (b[3] & 0x3F);
    }
  }
}
