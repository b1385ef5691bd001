#!/usr/bin/env bash
# End to end on the demo model: `leap generate --grammar` for each documented example grammar
# (docs/grammars), jump-forward against token-by-token, greedy; every output checked with
# `leap match --grammar`. Prints a Markdown table. Run from the repository root.
set -euo pipefail
declare -A prompts=(
  [arithmetic]="Compute: "
  [json]="Hermione Granger is a character in Harry Potter. Please fill in the following information about this character.\n"
  [sql-select]="The query: "
  [tool-call]="Call a tool for the weather in Paris.\n"
)
echo "| grammar | mode | output bytes | forward passes | tokens sampled | tokens jumped | finish | valid |"
echo "|---|---|---:|---:|---:|---:|---|---|"
for g in arithmetic json sql-select tool-call; do
  for mode in jump-forward token-by-token; do
    flag=""; [[ $mode == token-by-token ]] && flag="--no-jump-forward"
    out=$(./leap generate --grammar "docs/grammars/$g.gbnf" --prompt "$(printf "${prompts[$g]}")" --max-tokens 160 $flag --json 2>/dev/null)
    text=$(jq -c '.text' <<<"$out")
    valid=$(./leap match --grammar "docs/grammars/$g.gbnf" <<<"$text" 2>/dev/null)
    finish=$(jq -r '.finishReason' <<<"$out")
    [[ $finish == length ]] && valid="prefix (cut by max tokens)"
    echo "| $g | $mode | $(jq -r '.text | utf8bytelength' <<<"$out") | $(jq '.stats.forwardPasses' <<<"$out") | $(jq '.stats.tokensSampled' <<<"$out") | $(jq '.stats.tokensJumped' <<<"$out") | $finish | $valid |"
  done
done
