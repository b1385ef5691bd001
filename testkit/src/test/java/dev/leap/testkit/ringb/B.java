package dev.leap.testkit.ringb;

import dev.leap.testkit.ringa.A;

/** The other half of the ring: a method whose descriptor names {@link A}. */
public final class B {
  private B() {}

  /** A constant (inlined by javac, so it makes no edge by itself). */
  public static final int ONE = 1;

  /** Returns its argument: the descriptor {@code (Ldev/leap/testkit/ringa/A;)...} is the edge. */
  public static A same(A a) {
    return a;
  }
}
