package dev.leap.bench.xgrammar;

/** One instance text of a case, labelled valid or invalid. */
record Instance(String label, String text) {}
