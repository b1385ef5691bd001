#!/usr/bin/env python3
"""The forward pass of `leap bench forward`, written in plain PyTorch: the reference it is timed against.

Same model directory (a Llama-architecture Hugging Face checkpoint such as `leap bench forward --shape`
writes: default RoPE, no biases, tied or untied output), same work: greedy decode steps at each batch
size with --context tokens already in the KV cache (each step's argmax read back to the host), and one
prefill of each --prefill-tokens length in one pass. Decode runs eager and, with --graphs, as one CUDA
graph per batch size (static KV cache, the position a device tensor, attention over the whole cache
under a mask). Also prints the last position's five highest logits for the prompt 1..16, to compare
with Leap's line of the same name (same weights; float16 rounding differs).

    python3 bench/scripts/forward_reference.py DIR [--device cuda] [--dtype float16] [--graphs] \
        [--batches 1,8,32,64] [--context 200] [--steps 32] [--prefill-tokens 1000,3000] [--repeats 5] [--out FILE]

Needs torch and safetensors (the GPU machine's Python has both); not part of the build or the tests.
"""
import argparse
import json
import pathlib
import statistics
import time

import torch
import torch.nn.functional as F
from safetensors.torch import load_file


class Llama:
    """The Llama forward with a static KV cache of max_batch x max_len positions per layer."""

    def __init__(self, model_dir, device, dtype, max_batch, max_len):
        cfg = json.loads((model_dir / "config.json").read_text())
        self.n_layers = cfg["num_hidden_layers"]
        self.n_heads = cfg["num_attention_heads"]
        self.n_kv = cfg.get("num_key_value_heads", self.n_heads)
        self.hidden = cfg["hidden_size"]
        self.head_dim = cfg.get("head_dim") or self.hidden // self.n_heads
        self.eps = cfg["rms_norm_eps"]
        theta = cfg.get("rope_theta", 10000.0)
        if cfg.get("rope_scaling"):
            raise SystemExit("forward_reference.py: only default RoPE (rope_scaling null)")
        if cfg.get("attention_bias"):
            raise SystemExit("forward_reference.py: no attention biases")
        w = {k: v.to(device=device, dtype=dtype) for k, v in load_file(str(model_dir / "model.safetensors")).items()}
        self.embed = w["model.embed_tokens.weight"]
        self.lm_head = w.get("lm_head.weight", self.embed)
        self.norm = w["model.norm.weight"]
        self.layers = []
        for i in range(self.n_layers):
            p = f"model.layers.{i}."
            self.layers.append(
                dict(
                    ln1=w[p + "input_layernorm.weight"],
                    ln2=w[p + "post_attention_layernorm.weight"],
                    qkv=torch.cat(
                        [w[p + "self_attn.q_proj.weight"], w[p + "self_attn.k_proj.weight"], w[p + "self_attn.v_proj.weight"]]
                    ),
                    o=w[p + "self_attn.o_proj.weight"],
                    gate_up=torch.cat([w[p + "mlp.gate_proj.weight"], w[p + "mlp.up_proj.weight"]]),
                    down=w[p + "mlp.down_proj.weight"],
                )
            )
        inv = 1.0 / (theta ** (torch.arange(0, self.head_dim, 2, device=device, dtype=torch.float32) / self.head_dim))
        f = torch.outer(torch.arange(max_len, device=device, dtype=torch.float32), inv)
        emb = torch.cat([f, f], dim=-1)
        self.cos, self.sin = emb.cos().to(dtype), emb.sin().to(dtype)
        shape = (self.n_layers, max_batch, self.n_kv, max_len, self.head_dim)
        self.k = torch.zeros(shape, device=device, dtype=dtype)
        self.v = torch.zeros(shape, device=device, dtype=dtype)
        self.max_len = max_len
        self.device = device

    def rms(self, x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) * w

    @staticmethod
    def rotate(x, cos, sin):
        x1, x2 = x.chunk(2, dim=-1)
        return x * cos + torch.cat([-x2, x1], dim=-1) * sin

    def forward(self, ids, positions, whole_cache):
        """Logits of the last position of each row. ids [B, T]; positions [T] (a device tensor).

        whole_cache: attend over the whole static cache under a mask (positions <= the query's), as a
        CUDA graph needs; else over the first positions[-1] + 1 entries, causally (prefill from 0).
        """
        b, t = ids.shape
        x = self.embed[ids]
        cos, sin = self.cos[positions], self.sin[positions]
        if whole_cache:
            mask = (torch.arange(self.max_len, device=self.device)[None, :] <= positions[:, None])[None, None]
        for i, layer in enumerate(self.layers):
            h = self.rms(x, layer["ln1"])
            qkv = h @ layer["qkv"].T
            q, k, v = qkv.split([self.n_heads * self.head_dim, self.n_kv * self.head_dim, self.n_kv * self.head_dim], -1)
            q = self.rotate(q.view(b, t, self.n_heads, self.head_dim).transpose(1, 2), cos, sin)
            k = self.rotate(k.view(b, t, self.n_kv, self.head_dim).transpose(1, 2), cos, sin)
            v = v.view(b, t, self.n_kv, self.head_dim).transpose(1, 2)
            self.k[i, :b].index_copy_(2, positions, k)
            self.v[i, :b].index_copy_(2, positions, v)
            if whole_cache:
                a = F.scaled_dot_product_attention(q, self.k[i, :b], self.v[i, :b], attn_mask=mask, enable_gqa=True)
            else:
                n = t  # prefill from position 0
                a = F.scaled_dot_product_attention(
                    q, self.k[i, :b, :, :n], self.v[i, :b, :, :n], is_causal=True, enable_gqa=True
                )
            x = x + a.transpose(1, 2).reshape(b, t, -1) @ layer["o"].T
            h = self.rms(x, layer["ln2"])
            g, u = (h @ layer["gate_up"].T).chunk(2, dim=-1)
            x = x + (F.silu(g) * u) @ layer["down"].T
        return self.rms(x[:, -1], self.norm) @ self.lm_head.T


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir", type=pathlib.Path)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--dtype", default="float16", choices=["float16", "bfloat16", "float32"])
    ap.add_argument("--graphs", action="store_true", help="also decode with one CUDA graph per batch size")
    ap.add_argument("--batches", default="1,8,32,64")
    ap.add_argument("--context", type=int, default=200)
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--prefill-tokens", default="1000,3000")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=pathlib.Path)
    a = ap.parse_args()
    device = torch.device(a.device)
    dtype = getattr(torch, a.dtype)
    batches = [int(x) for x in a.batches.split(",")]
    prefills = [int(x) for x in a.prefill_tokens.split(",")]
    max_len = max([a.context + a.steps] + prefills)
    torch.manual_seed(5)
    with torch.inference_mode():
        m = Llama(a.model_dir, device, dtype, max(batches), max_len)
        vocab = m.embed.shape[0]
        out = dict(model=str(a.model_dir), device=str(device), dtype=a.dtype, torch=torch.__version__, decode=[], prefill=[])
        logits = m.forward(torch.arange(1, 17, device=device)[None], torch.arange(16, device=device), False).float()[0]
        top = torch.topk(logits, 5)
        out["probeTop5"] = [dict(token=int(i), logit=float(v)) for v, i in zip(top.values, top.indices)]
        print("probe 1..16, last position, top 5:" + "".join(f" {int(i)} ({float(v):.4f})" for v, i in zip(top.values, top.indices)))
        print("| batch | eager decode step (ms) | tokens/s | CUDA graph decode step (ms) | tokens/s |")
        print("|---:|---:|---:|---:|---:|")
        for b in batches:
            ctx_ids = torch.randint(0, vocab, (b, a.context), device=device)
            m.forward(ctx_ids, torch.arange(a.context, device=device), False)
            row = dict(batch=b)
            for mode in ["eager", "graph"] if a.graphs and device.type == "cuda" else ["eager"]:
                ids = torch.zeros((b, 1), dtype=torch.long, device=device)
                pos = torch.zeros(1, dtype=torch.long, device=device)
                run = lambda: m.forward(ids, pos, True).argmax(-1)  # noqa: E731
                if mode == "graph":
                    s = torch.cuda.Stream()
                    s.wait_stream(torch.cuda.current_stream())
                    with torch.cuda.stream(s):
                        for _ in range(3):
                            pos.fill_(a.context)
                            run()
                    torch.cuda.current_stream().wait_stream(s)
                    graph = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(graph):
                        nxt_static = run()

                    def step():
                        graph.replay()
                        return nxt_static
                else:
                    step = run
                per = []
                for rep in range(a.repeats):
                    ids.copy_(torch.randint(0, vocab, (b, 1), device=device))
                    sync(device)
                    t0 = time.perf_counter()
                    for k in range(a.steps):
                        pos.fill_(a.context + k)
                        nxt = step()
                        host = nxt.cpu()  # the engine reads each step's tokens
                        ids.copy_(nxt.view(b, 1))
                    if rep > 0:
                        per.append((time.perf_counter() - t0) * 1000 / a.steps)
                    del host
                row[mode + "StepMs"] = statistics.median(per)
            out["decode"].append(row)
            g = row.get("graphStepMs")
            print(
                f"| {b} | {row['eagerStepMs']:.2f} | {b * 1000 / row['eagerStepMs']:.0f} | "
                + (f"{g:.2f} | {b * 1000 / g:.0f} |" if g else "- | - |"),
                flush=True,
            )
        print("| prompt tokens | eager prefill (ms) | tokens/s |")
        print("|---:|---:|---:|")
        for n in prefills:
            ids = torch.randint(0, vocab, (1, n), device=device)
            positions = torch.arange(n, device=device)
            times = []
            for rep in range(a.repeats):
                sync(device)
                t0 = time.perf_counter()
                m.forward(ids, positions, False).argmax(-1).cpu()
                if rep > 0:
                    times.append((time.perf_counter() - t0) * 1000)
            ms = statistics.median(times)
            out["prefill"].append(dict(tokens=n, ms=ms))
            print(f"| {n} | {ms:.1f} | {n * 1000 / ms:.0f} |", flush=True)
        if a.out:
            a.out.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
