#!/usr/bin/env bash
# Leap against XGrammar (WebAssembly, @mlc-ai/web-xgrammar pinned in bench/xgrammar/package.json),
# side by side on the same vocabularies, schemas, grammars and token ids (issue 27; BENCHMARKS.md).
# Installs the Node side (npm ci, into the git-ignored bench/xgrammar/node_modules), builds the bench
# module, prints the load average before and after. Run from the repository root.
#   bench/scripts/xgrammar.sh [--per-subset N] [--warm-per-subset 2] [--warm-rounds 1] [--vocabs gpt2,llama3,qwen3] [--limit-s 10] [--out DIR] [--leap-eager]
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ ! -d bench/xgrammar/node_modules/@mlc-ai/web-xgrammar ]]; then
  (cd bench/xgrammar && npm ci --no-audit --no-fund --loglevel=error)
fi
mvn -B -q -DskipTests -pl bench -am package
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.leap.bench.xgrammar.XGrammarSideBySide "$@"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
