// XGrammar's side of `dev.leap.bench.xgrammar.XGrammarSideBySide` (issue 27): the WebAssembly build
// of XGrammar (@mlc-ai/web-xgrammar, pinned in package.json) driven over the inputs the Java side
// wrote (schemas, grammars, instance texts and their token ids from the real tokenizer).
//
// Protocol: one JSON object per line on stdin, one reply per line on stdout (logs go to stderr).
//   {"cmd":"vocab","inputs":FILE[,"cache":false]}
//                                  load FILE, build TokenizerInfo and GrammarCompiler for its vocabulary
//                                  (its compiled-grammar cache off with "cache":false, so a case run
//                                  again is compiled again) -> {"setupMs":..,"vocabSize":..}
//   {"cmd":"case","index":I}       compile case I, walk its instances token by token
//                                  -> {"ok":true,"compileMs":..,"firstMaskMs":..,"instances":[..]} or {"ok":false,"error":..}
//   {"cmd":"quit"}
// Standalone (no Java): `node side.mjs FILE` runs every case of FILE and prints one reply per line.
//
// The package says "type": "module" but lib/index.js is a UMD bundle, so a .cjs copy of it is loaded
// through createRequire (notes/peers.md).
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

// stdout carries the replies only: the WebAssembly module prints its own warnings (for example
// "WARNING: ..." for a schema keyword it ignores) through console.log, so console output goes to
// stderr.
console.log = (...args) => console.error(...args);
console.info = console.log;
console.warn = console.log;

const here = path.dirname(fileURLToPath(import.meta.url));
const lib = path.join(here, "node_modules", "@mlc-ai", "web-xgrammar", "lib", "index.js");
const cjs = path.join(here, "node_modules", ".leap-web-xgrammar.cjs");
if (!fs.existsSync(cjs) || fs.statSync(cjs).mtimeMs < fs.statSync(lib).mtimeMs) {
  fs.copyFileSync(lib, cjs);
}
const xg = createRequire(import.meta.url)(cjs);

let inputs = null;
let tokenizerInfo = null;
let compiler = null;

const now = () => performance.now();

/** The vocabulary as XGrammar takes it: token strings by id as tokenizer.json writes them ("byte_level"); special tokens empty. */
function encodedVocab(tokenizerJson, size) {
  const t = JSON.parse(fs.readFileSync(tokenizerJson, "utf8"));
  const vocab = new Array(size).fill("");
  for (const [tok, id] of Object.entries(t.model.vocab)) {
    if (id < size) vocab[id] = tok;
  }
  for (const a of t.added_tokens || []) {
    if (a.id < size) vocab[a.id] = a.special ? "" : a.content;
  }
  return vocab;
}

async function loadVocab(file, cache) {
  inputs = JSON.parse(fs.readFileSync(file, "utf8"));
  const vocab = encodedVocab(inputs.tokenizer, inputs.vocabSize);
  if (compiler) compiler.dispose();
  if (tokenizerInfo) tokenizerInfo.dispose();
  const t0 = now();
  tokenizerInfo = await xg.TokenizerInfo.createTokenizerInfo(vocab, "byte_level", false, inputs.vocabSize, inputs.eos);
  compiler = await xg.GrammarCompiler.createGrammarCompiler(tokenizerInfo, cache !== false);
  const setupMs = now() - t0;
  return { setupMs, vocabSize: tokenizerInfo.getVocabSize() };
}

async function compile(c) {
  if (c.kind === "schema") {
    // Leap's compact layout: one line, "," and ":" with no whitespace. XGrammar's default strictMode
    // (members and items beyond those listed are not generated), which is also Leap's generation
    // default where additionalProperties is absent (docs/json-schema.md).
    return compiler.compileJSONSchema(c.source, false, -1, [",", ":"], true);
  }
  if (c.kind === "builtin-json") {
    return compiler.compileBuiltinJSONGrammar();
  }
  return compiler.compileGrammar(c.source);
}

const bit = (mask, id) => (mask[id >>> 5] >>> (id & 31)) & 1;

async function runCase(index) {
  const c = inputs.cases[index];
  const t0 = now();
  let compiled;
  try {
    compiled = await compile(c);
  } catch (e) {
    return { ok: false, error: String(e && e.message ? e.message : e).slice(0, 300) };
  }
  const compileMs = now() - t0;
  const eos = inputs.eos[0];
  let firstMaskMs = null;
  const instances = [];
  for (const inst of c.instances) {
    const m = await xg.GrammarMatcher.createGrammarMatcher(compiled);
    const maskUs = [];
    let accepted = true;
    let rejectedAt = -1;
    let forced = 0;
    let coveredTo = 0; // bytes of the text covered by forced strings so far
    let pos = 0; // byte offset of the next token
    for (let k = 0; k <= inst.ids.length; k++) {
      const s = now();
      const mask = await m.getNextTokenBitmask();
      const e = now();
      if (firstMaskMs === null) firstMaskMs = e - t0;
      maskUs.push((e - s) * 1000);
      const f = Buffer.byteLength(m.findJumpForwardString(), "utf8");
      if (f > 0 && pos + f > coveredTo) {
        forced += pos + f - Math.max(pos, coveredTo);
        coveredTo = pos + f;
      }
      if (k === inst.ids.length) {
        if (!bit(mask, eos) || !m.acceptToken(eos)) {
          accepted = false;
          rejectedAt = k;
        }
        break;
      }
      const id = inst.ids[k];
      if (!bit(mask, id) || !m.acceptToken(id)) {
        accepted = false;
        rejectedAt = k;
        break;
      }
      pos += inst.tokenBytes[k];
    }
    m.dispose();
    // The text as bytes, without tokens (not timed): tells a language difference from a token one.
    const t = await xg.GrammarMatcher.createGrammarMatcher(compiled);
    const acceptsText = t._acceptString(inst.text) && t.acceptToken(eos);
    t.dispose();
    instances.push({ accepted, rejectedAt, forcedBytes: forced, acceptsText, maskUs });
  }
  if (firstMaskMs === null) {
    const m = await xg.GrammarMatcher.createGrammarMatcher(compiled);
    await m.getNextTokenBitmask();
    firstMaskMs = now() - t0;
    m.dispose();
  }
  compiled.dispose();
  return { ok: true, compileMs, firstMaskMs, instances };
}

async function handle(msg) {
  if (msg.cmd === "vocab") return loadVocab(msg.inputs, msg.cache);
  if (msg.cmd === "case") return runCase(msg.index);
  throw new Error("unknown command " + msg.cmd);
}

if (process.argv[2]) {
  await loadVocab(process.argv[2]);
  for (let i = 0; i < inputs.cases.length; i++) {
    process.stdout.write(JSON.stringify({ index: i, ...(await runCase(i)) }) + "\n");
  }
} else {
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.cmd === "quit") break;
    let reply;
    try {
      reply = await handle(msg);
    } catch (e) {
      reply = { ok: false, error: String(e && e.message ? e.message : e).slice(0, 300) };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
  process.exit(0);
}
