package dev.leap.bench.xgrammar;

import java.util.List;

/**
 * {@code kind}: {@code schema}, {@code grammar} (GBNF) or {@code builtin-json} (Leap's {@code
 * Grammar.json()}, XGrammar's built-in JSON).
 */
record Case(String id, String group, String kind, String source, List<Instance> instances) {}
