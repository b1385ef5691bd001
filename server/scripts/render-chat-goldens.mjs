// Renders the chat-template test cases with @huggingface/jinja (the reference renderer of
// huggingface.js, which matches transformers on the Hub's templates) into goldens.json.
// Usage (from server/): npm install --prefix /tmp/hf-jinja @huggingface/jinja@0.5.11 &&
//   NODE_PATH=/tmp/hf-jinja/node_modules node scripts/render-chat-goldens.mjs
import { createRequire } from "module";
import { readFileSync, writeFileSync } from "fs";
const require = createRequire(import.meta.url);
const { Template } = require("@huggingface/jinja");

const dir = "src/test/resources/dev/leap/server/chat/";
const cases = JSON.parse(readFileSync(dir + "cases.json", "utf8"));
const out = [];
for (const model of ["llama3", "qwen3"]) {
  const config = JSON.parse(readFileSync(`../../shared/tokenizers/${model}/tokenizer_config.json`, "utf8"));
  const template = new Template(config.chat_template);
  for (const c of cases) {
    const vars = {
      messages: c.messages,
      add_generation_prompt: c.add_generation_prompt ?? true,
      bos_token: config.bos_token ?? "",
      eos_token: config.eos_token ?? "",
      ...(c.tools ? { tools: c.tools } : {}),
      ...(c.kwargs ?? {}),
    };
    out.push({ model, name: c.name, prompt: template.render(vars) });
  }
}
writeFileSync(dir + "goldens.json", JSON.stringify(out, null, 1) + "\n");
console.log(`wrote ${out.length} goldens`);
